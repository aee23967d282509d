/*
 * Copyright 2026 jfabric contributors.
 */

/**
 * The product's command ring and completion ring, one implementation each (see {@code ringbuffers/README.md} for
 * the measurements that chose them):
 * <ul>
 *     <li>{@link io.jfabric.ring.CommandQueue}: application threads claim a command (opcode, length), encode it and
 *     commit it; the domain agent reads committed commands in order with a controlled read that can leave one in
 *     place. On Agrona's {@code ManyToOneRingBuffer}.</li>
 *     <li>{@link io.jfabric.ring.CompletionRing}: one completion queue's storage, written by the agent (entries and
 *     error entries), read by any number of application threads through a read guard, with the reservations that
 *     bound what posts may have outstanding.</li>
 * </ul>
 * Full claims and writes return a negative index or false (the caller answers {@code -EAGAIN}); nothing blocks.
 * Every publish and every read names its memory ordering in a comment.
 * <p>
 * jcstress tests live in the module's test sources ({@code io.jfabric.ring.stress}); {@code mvn verify} runs them in
 * a short mode and fails the build on a failed or errored test. The full mode, for a quiet machine:
 * <pre>
 * mvn -o verify -pl ringbuffers -Djcstress.mode=default
 * </pre>
 */
package io.jfabric.ring;
