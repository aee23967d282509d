package io.jfabric;

import io.jfabric.agent.FlowControl;
import io.jfabric.stat.CountersConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConfigurationTest
{
    private static final Pattern PROPERTY_LITERAL =
        Pattern.compile("\"(jfabric\\.[a-z][A-Za-z]*(\\.[a-z][A-Za-z]*)+)\"");

    @Test
    void shouldFormEnvironmentVariablesFromPropertyNames()
    {
        assertEquals("JFABRIC_SHM_DIR", Configuration.environmentVariable("jfabric.shm.dir"));
        assertEquals("JFABRIC_SHM_RING_CAPACITY", Configuration.environmentVariable("jfabric.shm.ring.capacity"));
        assertEquals("JFABRIC_FLOW_CREDIT_BYTES", Configuration.environmentVariable("jfabric.flow.creditBytes"));
        assertEquals("JFABRIC_COUNTERS_VALUES_LENGTH",
            Configuration.environmentVariable("jfabric.counters.values.length"));
    }

    @Test
    void shouldListEveryJfabricPropertyThatTheSourcesName() throws IOException
    {
        final TreeSet<String> named = new TreeSet<>();
        try (Stream<Path> modules = Files.list(Paths.get("..")))
        {
            for (final Path module : modules.collect(Collectors.toList()))
            {
                final Path sources = module.resolve("src/main/java");
                if (!Files.isDirectory(sources))
                {
                    continue;
                }
                try (Stream<Path> files = Files.walk(sources))
                {
                    final List<Path> javaFiles =
                        files.filter(f -> f.toString().endsWith(".java")).collect(Collectors.toList());
                    for (final Path file : javaFiles)
                    {
                        final Matcher m = PROPERTY_LITERAL.matcher(Files.readString(file));
                        while (m.find())
                        {
                            named.add(m.group(1));
                        }
                    }
                }
            }
        }
        final TreeSet<String> listed = Configuration.settings().stream().map(Configuration.Setting::property)
            .collect(Collectors.toCollection(TreeSet::new));
        assertTrue(named.size() >= 8, "the scan found too little: " + named);
        assertEquals(named, listed, "io.jfabric.Configuration and the jfabric.* properties in the sources differ");
    }

    @Test
    void shouldStateTheRuntimeDefaultsTheCodeUses()
    {
        final Map<String, String> defaults = Configuration.settings().stream()
            .collect(Collectors.toMap(Configuration.Setting::property, Configuration.Setting::defaultValue));
        assertEquals(Long.toString(FlowControl.CREDITS_DEFAULT), defaults.get(FlowControl.CREDITS_PROP));
        assertEquals(Long.toString(FlowControl.CREDIT_BYTES_DEFAULT), defaults.get(FlowControl.CREDIT_BYTES_PROP));
        assertEquals(Long.toString(FlowControl.UNEXPECTED_ENTRIES_DEFAULT),
            defaults.get(FlowControl.UNEXPECTED_ENTRIES_PROP));
        assertEquals(Long.toString(FlowControl.UNEXPECTED_BYTES_DEFAULT),
            defaults.get(FlowControl.UNEXPECTED_BYTES_PROP));
        assertEquals(Integer.toString(CountersConfiguration.VALUES_LENGTH_DEFAULT),
            defaults.get(CountersConfiguration.VALUES_LENGTH_PROP));
        assertEquals(Integer.toString(CountersConfiguration.ERROR_LOG_LENGTH_DEFAULT),
            defaults.get(CountersConfiguration.ERROR_LOG_LENGTH_PROP));
    }

    @Test
    void shouldTakeEnvironmentVariablesUnlessTheSystemPropertyIsSet(@TempDir final Path dir) throws Exception
    {
        // Its output goes to a file, not a pipe that nobody reads until it exits (a full pipe would block it).
        final Path output = dir.resolve("child.out");
        final ProcessBuilder pb = new ProcessBuilder(
            Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
            "-Djfabric.flow.unexpectedEntries=5",
            "-cp", System.getProperty("java.class.path"),
            Child.class.getName())
            .redirectErrorStream(true)
            .redirectOutput(output.toFile());
        pb.environment().put("JFABRIC_FLOW_CREDITS", "7");
        pb.environment().put("JFABRIC_FLOW_UNEXPECTED_ENTRIES", "3");
        pb.environment().remove("JFABRIC_FLOW_CREDIT_BYTES");
        final Process child = pb.start();
        try
        {
            assertTrue(child.waitFor(50, TimeUnit.SECONDS), "the child JVM did not finish");
            final String out = Files.readString(output, StandardCharsets.UTF_8);
            assertEquals(0, child.exitValue(), out);
            assertEquals(List.of("credits=7", "unexpectedEntries=5", "creditBytes=null"), List.of(out.split("\n")));
        }
        finally
        {
            child.destroyForcibly();
        }
    }

    /**
     * The child: loads {@link Fabric} (which applies the environment) and prints what the runtime reads.
     */
    static final class Child
    {
        public static void main(final String[] args)
        {
            Fabric.getInfo(Info.builder().build());
            System.out.println("credits=" + FlowControl.credits());
            System.out.println("unexpectedEntries=" + FlowControl.unexpectedEntries());
            System.out.println("creditBytes=" + System.getProperty(FlowControl.CREDIT_BYTES_PROP));
        }
    }
}
