/*
 * Copyright 2026 jfabric contributors.
 */

/**
 * Command rings and completion rings: the lock-free, allocation-free spine between application threads and a
 * domain's agent, over Agrona {@link org.agrona.concurrent.AtomicBuffer}s in direct memory or in a memory-mapped file
 * ({@link io.jfabric.ring.MappedRingFile}) that another process can map.
 * <ul>
 *     <li>{@link io.jfabric.ring.CommandRing}: application threads claim 64-byte slots (a command with an inline
 *     payload takes consecutive slots), encode the command, commit or abort; the agent drains in bounded batches.
 *     {@link io.jfabric.ring.ManyToOneCommandRing} for many producers, {@link io.jfabric.ring.OneToOneCommandRing}
 *     for an endpoint owned by one thread. Layout: {@link io.jfabric.ring.CommandRingDescriptor}.</li>
 *     <li>{@link io.jfabric.ring.CompletionRing}: the agent writes 64-byte completion entries (the tagged CQ format
 *     plus errno, provider errno and overflow length); readers stop before an error entry and read it with
 *     {@code readError}. {@link io.jfabric.ring.OneToOneCompletionRing} for one reader,
 *     {@link io.jfabric.ring.SharedCompletionRing} for several readers sharing it. Decode with
 *     {@link io.jfabric.ring.CompletionFlyweight}. Layout: {@link io.jfabric.ring.CompletionRingDescriptor}.</li>
 * </ul>
 * Full claims and writes return {@link io.jfabric.ring.RingStatus#INSUFFICIENT_CAPACITY} (the caller returns
 * {@code -EAGAIN}); nothing blocks. Every publish and every read names its memory ordering in a comment.
 * <p>
 * jcstress tests live in the module's test sources ({@code io.jfabric.ring.stress}); {@code mvn verify} runs them in
 * a short mode and fails the build on a failed or errored test. The full mode, for a quiet machine:
 * <pre>
 * mvn -o verify -pl ringbuffers -Djcstress.mode=default
 * </pre>
 * or, on the test classpath, {@code java org.openjdk.jcstress.Main -t io.jfabric.ring.stress -m default}.
 */
package io.jfabric.ring;
