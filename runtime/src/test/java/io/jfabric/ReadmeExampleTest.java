package io.jfabric;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The README's "first program", kept compiling and true: an endpoint sends a tagged message to itself. The README's
 * text is compiled and run as it stands, and it is the body of {@code examples/first-program}'s main.
 */
class ReadmeExampleTest
{
    private static final Path README = Paths.get("..", "README.md");
    private static final Path EXAMPLE = Paths.get("..", "examples", "first-program", "src", "main", "java", "com",
        "example", "FirstProgram.java");

    @Test
    @Timeout(60)
    void shouldCompileAndRunTheReadmeProgramAsWritten(@TempDir final Path dir) throws Exception
    {
        final String source = "import io.jfabric.*;\n" +
            "import org.agrona.concurrent.UnsafeBuffer;\n" +
            "import java.nio.ByteBuffer;\n" +
            "public final class ReadmeProgram\n{\n    public static void main(final String[] args)\n    {\n" +
            readmeProgram() + "    }\n}\n";
        final Path file = dir.resolve("ReadmeProgram.java");
        Files.writeString(file, source);
        final JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        final ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        final int rc = javac.run(null, diagnostics, diagnostics, "-classpath", System.getProperty("java.class.path"),
            "-d", dir.toString(), file.toString());
        assertEquals(0, rc, () -> "the README's program does not compile:\n" + diagnostics);

        final PrintStream stdout = System.out;
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try (URLClassLoader loader = new URLClassLoader(new URL[] { dir.toUri().toURL() }, getClass().getClassLoader()))
        {
            final Method main = loader.loadClass("ReadmeProgram").getMethod("main", String[].class);
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            main.invoke(null, (Object) new String[0]);
        }
        finally
        {
            System.setOut(stdout);
        }
        assertEquals("hello, fabric", captured.toString(StandardCharsets.UTF_8).strip());
    }

    @Test
    void shouldBeTheBodyOfTheExampleProjectsMain() throws IOException
    {
        final String example = Files.readString(EXAMPLE);
        final String begin = "// ---- README: first program";
        final String end = "// ---- end of README: first program";
        final int from = example.indexOf('\n', example.indexOf(begin)) + 1;
        final int to = example.lastIndexOf('\n', example.indexOf(end)) + 1;
        assertTrue(from > 0 && to > from, "markers missing in " + EXAMPLE);
        final StringBuilder dedented = new StringBuilder();
        for (final String line : example.substring(from, to).split("\n"))
        {
            dedented.append(line.length() >= 8 ? line.substring(8) : line.strip()).append('\n');
        }
        assertEquals(dedented.toString(), readmeProgram());
    }

    private static String readmeProgram() throws IOException
    {
        final String readme = Files.readString(README);
        final int section = readme.indexOf("## A first program");
        assertTrue(section >= 0, "README has no 'A first program' section");
        final int from = readme.indexOf("```java\n", section) + "```java\n".length();
        final int to = readme.indexOf("```\n", from);
        return readme.substring(from, to);
    }
    @Test
    @Timeout(30)
    void shouldRunTheReadmeExample()
    {
        final Info hints = Info.builder()
            .caps(Flags.TAGGED)
            .fabricAttr(FabricAttr.builder().provName("inproc").build())
            .domainAttr(DomainAttr.builder().dataProgress(Progress.MANUAL).build())
            .build();
        final Info info = Fabric.getInfo(hints).get(0);
        try (Fabric fabric = Fabric.open(info);
            Domain domain = fabric.domain(info, "backoff");
            AddressVector av = domain.addressVector(AvType.TABLE, 16);
            CompletionQueue cq = domain.completionQueue(1024, CqFormat.TAGGED);
            Endpoint ep = domain.endpoint(info).bind(av, 0).bind(cq, Flags.TRANSMIT | Flags.RECV).enable())
        {
            final long peer = av.insert(ep.name());
            final UnsafeBuffer tx = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
            final UnsafeBuffer rx = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
            for (int i = 0; i < 64; i++)
            {
                tx.putByte(i, (byte) (i * 7 + 1));
            }
            assertEquals(0, ep.trecv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 0x42, 0, 1L));
            assertEquals(0, ep.tsend(tx, 0, 64, peer, 0x42, 2L));
            final CompletionEntry e = new CompletionEntry();
            long contexts = 0;
            int completions = 0;
            final long deadline = System.nanoTime() + 20_000_000_000L;
            while (completions < 2)
            {
                final int n = cq.read(e);
                if (n == 1)
                {
                    completions++;
                    contexts |= 1L << e.context();
                }
                else if (n == -Errno.EAVAIL.value())
                {
                    final CompletionErrorEntry err = new CompletionErrorEntry();
                    assertEquals(1, cq.readErr(err));
                    fail("unexpected error completion: " + err.errno());
                }
                assertTrue(System.nanoTime() < deadline, "no completions within 20 s");
            }
            assertEquals(0b110L, contexts);
            for (int i = 0; i < 64; i++)
            {
                assertEquals((byte) (i * 7 + 1), rx.getByte(i));
            }
        }
    }
}
