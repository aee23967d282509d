/**
 * The receive-side matching engine of an endpoint: which posted receive a message arriving from the fabric
 * goes to, or where it waits when none is posted.
 * <p>
 * Model: {@link io.jfabric.matching.MatchingEngine} holds posted receives (tagged and untagged; one any-source
 * queue and one queue per source fi_addr; each entry stamped with a global posting sequence so that the oldest
 * of a directed and an any-source match wins) and unexpected messages (kept per source in arrival order, plus
 * one queue per raw key for senders not yet in the address vector, re-homed on insert). A message matches a
 * tagged receive when {@code (sendTag & ~ignore) == (recvTag & ~ignore)}. Posted tagged receives are stored in
 * an ordered list or in an exact-tag hash index ({@link io.jfabric.matching.TagStorage}), chosen per engine.
 * <p>
 * The engine never touches payload: arrivals carry a {@code long} payload handle from the transport and every
 * result ({@link io.jfabric.matching.MatchResult}, a reusable object the agent owns) says which buffer, offset
 * and length the agent copies to, and the overflow to report as {@code FI_ETRUNC}. Unexpected memory is
 * bounded by entries and bytes; at the bound an arrival gets {@code -EAGAIN} and the transport back-pressures
 * the sender. Posted receives and unexpected messages live in pools allocated at construction.
 * <p>
 * Threading: everything here is single-threaded, owned by the domain agent; no locks, no atomics.
 */
package io.jfabric.matching;
