package io.jfabric;

import java.util.List;
import java.util.Locale;

/**
 * Every setting of jfabric and of its bundled providers, in one place: the system property, its environment-variable
 * form, the default and what it does. {@code jfabric info --env} prints this list and {@code docs/CONFIGURATION.md}
 * explains it; a test fails when a {@code jfabric.*} property is read anywhere in the sources without an entry here.
 * <p>
 * A setting is a system property ({@code -Djfabric.shm.dir=/tmp/x}) or, as libfabric users set {@code FI_*}
 * variables, an environment variable ({@code JFABRIC_SHM_DIR=/tmp/x}): {@link #applyEnvironment()}, run once when
 * {@link Fabric} loads, copies each variable that is set into its property when the property is not set, so the
 * {@code -D} form wins. Properties are read when the object they configure opens (a domain, an endpoint), never on
 * the data path.
 * <p>
 * Threading: stateless apart from the system properties it sets; thread-safe.
 */
public final class Configuration
{
    /** Environment variable of the {@code ./jfabric} launcher: extra JVM options (heap, {@code -D} settings). */
    public static final String JAVA_OPTS_ENV = "JFABRIC_JAVA_OPTS";

    private static final List<Setting> SETTINGS = List.of(
        new Setting("jfabric.counters.dir", "/dev/shm/jfabric-<uid>, else ${java.io.tmpdir}/jfabric-<uid>", "path",
            "directory of each process's counters and error log file (jfabric stat reads it); created 0700, refused " +
            "(counters kept in process memory) when a link, not owned by the user or open to others"),
        new Setting("jfabric.counters.values.length", "65536", "bytes",
            "bytes of the counter values section of the counters file, 128 per counter (65536: 512 counters)"),
        new Setting("jfabric.counters.errors.length", "65536", "bytes",
            "bytes of the distinct-error log section of the counters file, a multiple of 8"),
        new Setting("jfabric.flow.credits", "65536", "integer",
            "messages one sending endpoint may have outstanding (unmatched) at one receiving endpoint; at least 2"),
        new Setting("jfabric.flow.creditBytes", "16777216", "bytes",
            "eager payload bytes one sending endpoint may have outstanding at one receiving endpoint (at least twice " +
            "the eager threshold)"),
        new Setting("jfabric.flow.requests", "256", "integer",
            "requests awaiting an answer (RMA, atomics, eager delivery-complete sends) one endpoint may " +
            "have outstanding at one peer endpoint; more wait in the sender's agent; at least 1"),
        new Setting("jfabric.flow.peerOwed", "1024", "integer",
            "requests awaiting this domain's answer one peer endpoint may have outstanding at one endpoint of ours " +
            "(the target side of jfabric.flow.requests, which must not exceed it); a peer beyond it has its further " +
            "requests dropped, counted and reported on the domain's EQ; at least 1"),
        new Setting("jfabric.flow.unexpectedEntries", "262144", "integer",
            "unexpected messages one receiving endpoint stores, from all its peers together"),
        new Setting("jfabric.flow.unexpectedBytes", "67108864", "bytes",
            "unexpected eager payload bytes one receiving endpoint stores, from all its peers together"),
        new Setting("jfabric.matching.tagStorage", "auto", "string",
            "storage of an endpoint's posted tagged receives: auto (a list while a queue is shallow, the hashed " +
            "exact-tag index once it holds jfabric.matching.indexDepth receives), list, or index"),
        new Setting("jfabric.matching.indexDepth", "16", "integer",
            "posted tagged receives in one queue at which auto storage moves it to the hashed index (back to the " +
            "list when it empties); 1 to 1048576"),
        new Setting("jfabric.cm.connectTimeoutMs", "10000", "integer",
            "milliseconds a connect through the transport waits for an accept or reject before its ECONNREFUSED " +
            "error event"),
        new Setting("jfabric.shm.dir", "/dev/shm/jfabric-<uid>, else ${java.io.tmpdir}/jfabric-<uid>", "path",
            "shm provider: directory of the ring, lane and pool files; every process of a job must use the same one; " +
            "created 0700, refused (EACCES) when a link, not owned by the user or open to others"),
        new Setting("jfabric.shm.ring.capacity", "16777216", "bytes",
            "shm provider: bytes of each of the two rings of a lane (one per writer and reader domain pair), a " +
            "power of two from 4 MiB to 512 MiB; twice this is reserved in the shm directory per lane"),
        new Setting("jfabric.shm.pool.size", "67108864", "bytes",
            "shm provider: bytes of a domain's shared-memory pool (Domain.allocateShared, single-copy transfers), " +
            "rounded up to 4096, at most 1 GiB; 0 disables the pool"),
        new Setting("jfabric.aeron.dir", "none (aeron.dir, else an embedded driver per fabric)", "path",
            "aeron provider: directory of an external media driver to attach to instead of starting one per fabric"),
        new Setting("jfabric.aeron.host", "127.0.0.1", "string",
            "aeron provider: host (name or address) a domain listens on when its info names no source address"),
        new Setting("jfabric.gni.wire", "injvm", "string",
            "gni provider: the wire between emulated Aries nodes, injvm (this JVM only) or shm (every process of " +
            "the host, over the shm provider's rings)"),
        new Setting("jfabric.gni.directory", "a fresh temporary folder (injvm), ${java.io.tmpdir}/jfabric-gni (shm)",
            "path", "gni provider: the emulated system's node directory (device address and inst id to wire " +
            "address); every process of one emulated system must use the same one"),
        new Setting("jfabric.gni.connectTimeoutMs", "3000", "integer",
            "gni provider: milliseconds a lazy VC connect may take before the operations waiting on it fail with " +
            "FI_ETIMEDOUT (at least 1)"),
        new Setting("jfabric.aeron.livenessTimeoutMs", "3000", "integer",
            "aeron provider: milliseconds a peer may stay unreachable before it is reported down and what waits on " +
            "it fails (100 to 3600000); the embedded driver's connection and image timeouts are half of it"),
        new Setting("jfabric.aeron.termLength", "4194304", "bytes",
            "aeron provider: term length of the publications, a power of two from 64 KiB to 1 GiB; frames are at " +
            "most an eighth of it"),
        new Setting("jfabric.aeron.connectWaitMs", "500", "integer",
            "aeron provider: milliseconds an address vector insert waits at most for a new peer's publications to " +
            "connect (0 to 60000)"),
        new Setting("jfabric.aeron.ipc", "true", "boolean",
            "aeron provider: reach peers that listen on this process's media driver over aeron:ipc (found in a " +
            "registry in the driver's directory) instead of UDP through that driver; false for UDP to every peer"));

    private Configuration()
    {
    }

    /**
     * One setting.
     *
     * @param property     the system property, {@code jfabric.<area>.<name>}.
     * @param defaultValue what applies when neither the property nor the variable is set.
     * @param type         the kind of value: {@code string}, {@code integer}, {@code bytes} or {@code path}.
     * @param description  what it does, one sentence.
     */
    public record Setting(String property, String defaultValue, String type, String description)
    {
        /**
         * @return the environment-variable form: {@code JFABRIC_} and the property after {@code jfabric.}, upper
         * case, dots and camel-case humps as underscores ({@code jfabric.flow.creditBytes} is
         * {@code JFABRIC_FLOW_CREDIT_BYTES}).
         */
        public String environmentVariable()
        {
            return Configuration.environmentVariable(property);
        }

        /**
         * @return the value in effect now: the system property, else the environment variable, else null (the
         * default applies).
         */
        public String value()
        {
            final String value = System.getProperty(property);
            return null != value ? value : System.getenv(environmentVariable());
        }
    }

    /**
     * @return every setting, in the order of the documentation.
     */
    public static List<Setting> settings()
    {
        return SETTINGS;
    }

    /**
     * The environment-variable form of a property name.
     *
     * @param property {@code jfabric.<area>.<name>}.
     * @return {@code JFABRIC_<AREA>_<NAME>}.
     */
    public static String environmentVariable(final String property)
    {
        final StringBuilder env = new StringBuilder(property.length() + 8);
        for (int i = 0; i < property.length(); i++)
        {
            final char c = property.charAt(i);
            if (c == '.')
            {
                env.append('_');
            }
            else if (Character.isUpperCase(c))
            {
                env.append('_').append(c);
            }
            else
            {
                env.append(Character.toUpperCase(c));
            }
        }
        return env.toString().toUpperCase(Locale.ROOT);
    }

    /**
     * Copies each setting's environment variable that is set into its system property where that property is not
     * set. Run once when {@link Fabric} loads; safe to run again.
     */
    public static void applyEnvironment()
    {
        for (final Setting setting : SETTINGS)
        {
            final String env = System.getenv(setting.environmentVariable());
            if (null != env && null == System.getProperty(setting.property()))
            {
                System.setProperty(setting.property(), env);
            }
        }
    }
}
