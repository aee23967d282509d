package io.jfabric;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A JVM started without {@link Fabric#JVM_FLAG}: the domain open fails with EACCES naming the flag (a second try
 * too), and the failed opens leave no child behind, so the fabric closes.
 */
class MissingJvmFlagTest
{
    @Test
    void shouldFailTheDomainOpenWithEaccesNamingTheFlagAndStillCloseTheFabric(@TempDir final Path dir) throws Exception
    {
        // Its output goes to a file, not a pipe that nobody reads until it exits (a full pipe would block it).
        final Path output = dir.resolve("child.out");
        final Process child = new ProcessBuilder(
            Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp", System.getProperty("java.class.path"),
            Child.class.getName())
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
        try
        {
            assertTrue(child.waitFor(50, TimeUnit.SECONDS), "the child JVM did not finish");
            final List<String> lines = List.of(Files.readString(output, StandardCharsets.UTF_8).split("\n"));
            assertEquals(0, child.exitValue(), () -> String.join("\n", lines));
            assertEquals("first: EACCES " + Fabric.JVM_FLAG, lines.get(0), () -> String.join("\n", lines));
            assertEquals("second: EACCES " + Fabric.JVM_FLAG, lines.get(1), () -> String.join("\n", lines));
            assertEquals("fabric closed", lines.get(2), () -> String.join("\n", lines));
        }
        finally
        {
            child.destroyForcibly();
        }
    }

    /**
     * The child: two domain opens, then the fabric's close.
     */
    static final class Child
    {
        public static void main(final String[] args) throws IOException
        {
            final Info hints = Info.builder().fabricAttr(FabricAttr.builder().provName("inproc").build()).build();
            final Info info = Fabric.getInfo(hints).get(0);
            final Fabric fabric = Fabric.open(info);
            tryDomain("first", fabric, info);
            tryDomain("second", fabric, info);
            fabric.close();
            System.out.println("fabric closed");
        }

        private static void tryDomain(final String label, final Fabric fabric, final Info info)
        {
            try (Domain ignored = fabric.domain(info))
            {
                System.out.println(label + ": opened (the JVM did not need the flag)");
            }
            catch (final FabricException ex)
            {
                final String message = ex.getMessage();
                System.out.println(label + ": " + ex.errno() + " " +
                    message.substring(message.indexOf("start the JVM with ") + "start the JVM with ".length()));
            }
        }
    }
}
