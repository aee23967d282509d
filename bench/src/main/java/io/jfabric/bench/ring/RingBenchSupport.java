/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.bench.ring;

/**
 * Constants shared by the ring benchmarks.
 * <p>
 * Threading: constants only.
 */
final class RingBenchSupport
{
    /**
     * Command ring capacity in units of 64 bytes (256 KiB).
     */
    static final int SLOTS = 4096;

    /**
     * The most commands or entries a consumer takes per call.
     */
    static final int BATCH = 64;

    /**
     * JMH forks need Agrona's access to jdk.internal.misc.
     */
    static final String OPENS_MISC = "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED";

    /**
     * JMH forks need Agrona's access to java.nio.
     */
    static final String OPENS_NIO = "--add-opens=java.base/java.nio=ALL-UNNAMED";

    private RingBenchSupport()
    {
    }
}
