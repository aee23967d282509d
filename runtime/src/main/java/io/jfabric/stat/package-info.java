/**
 * Counters and the error log of a process in a mapped file, as Aeron's CnC file: {@link io.jfabric.stat.CountersFile}
 * writes it (one per process, created when the first domain opens, removed when the last closes),
 * {@link io.jfabric.stat.DomainCounters} holds one domain's counters, {@link io.jfabric.stat.StatReader} lists and
 * reads such files from any process. Layout: {@link io.jfabric.stat.CountersFileDescriptor}; properties:
 * {@link io.jfabric.stat.CountersConfiguration}.
 */
package io.jfabric.stat;
