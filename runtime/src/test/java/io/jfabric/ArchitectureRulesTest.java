package io.jfabric;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The layout rules of the runtime (issue 11), read from the sources: no class over {@value #MAX_CODE_LINES} lines of
 * code, transports blind to the agent, frame and command fields read only through their flyweights, the agent
 * package internal (no API or SPI signature names an agent type; a public agent type is one another runtime package
 * uses) and no provider named by the runtime. The test runs in the runtime module's directory (surefire's default);
 * the sibling modules are read by relative path and must be there.
 */
class ArchitectureRulesTest
{
    /** The most lines of code (Javadoc, comments and blank lines aside) a runtime class may have. */
    static final int MAX_CODE_LINES = 800;

    private static final Path MAIN = Paths.get("src", "main", "java");
    private static final Path AGENT = MAIN.resolve(Paths.get("io", "jfabric", "agent"));
    private static final Pattern FRAME_OFFSET = Pattern.compile("\\bFrameDescriptor\\.[A-Z0-9_]+_OFFSET\\b|" +
        "import static io\\.jfabric\\.agent\\.FrameDescriptor\\.");
    private static final Pattern COMMAND_OFFSET = Pattern.compile("\\bCommandDescriptor\\.[A-Z0-9_]+_OFFSET\\b|" +
        "import static io\\.jfabric\\.agent\\.CommandDescriptor\\.[A-Z0-9_]+_OFFSET");
    /**
     * Agent types public for the tests and benchmarks of other modules only (the conformance suite's and shm's
     * reference model for atomics, the atomic benchmark's MR check); internal all the same (package-info).
     */
    private static final List<String> TEST_AND_BENCH_ONLY = List.of("AtomicExecutor", "MemoryRegistry");
    private static final Pattern PUBLIC_TYPE = Pattern.compile(
        "^public (?:final |abstract )*(?:class|interface|enum|record) (\\w+)", Pattern.MULTILINE);

    @Test
    void shouldCountCodeLinesWithoutBlankLinesCommentsOrJavadoc()
    {
        final String source = String.join("\n",
            "package a;",
            "",
            "/**",
            " * Javadoc.",
            " */",
            "final class A",
            "{",
            "    // a comment",
            "    /* a block */",
            "    int x; // trailing comment counts as code",
            "    /* opens",
            "       closes */ int y;",
            "    /*",
            "     * block",
            "     */",
            "}",
            "");
        assertEquals(6, codeLines(source));
    }

    @Test
    void shouldKeepEveryRuntimeClassWithinTheCodeLineLimit()
    {
        final List<String> tooLong = new ArrayList<>();
        for (final Path file : javaFiles(MAIN))
        {
            final int lines = codeLines(read(file));
            if (lines > MAX_CODE_LINES)
            {
                tooLong.add(MAIN.relativize(file) + " (" + lines + ")");
            }
        }
        assertEquals(List.of(), tooLong, "runtime classes over " + MAX_CODE_LINES + " lines of code");
    }

    @Test
    void shouldKeepProvidersAndTheAriesEmulationOffTheAgentPackage()
    {
        final List<String> offenders = new ArrayList<>();
        for (final String module : new String[]{"providers", "gni-aries"})
        {
            final Path sources = Paths.get("..", module, "src", "main", "java");
            assertTrue(Files.isDirectory(sources), "the " + module + " module's sources at " +
                sources.toAbsolutePath().normalize());
            final List<Path> files = javaFiles(sources);
            assertTrue(files.size() > 5, "the " + module + " module has sources: " + files.size());
            for (final Path file : files)
            {
                if (stripComments(read(file)).contains("io.jfabric.agent"))
                {
                    offenders.add(module + ": " + sources.relativize(file));
                }
            }
        }
        assertEquals(List.of(), offenders, "provider sources that name io.jfabric.agent");
    }

    @Test
    void shouldReadFrameAndCommandFieldsOnlyThroughTheirFlyweights()
    {
        final List<String> offenders = new ArrayList<>();
        for (final Path file : javaFiles(MAIN))
        {
            final String name = file.getFileName().toString();
            final String source = stripComments(read(file));
            if (!name.equals("FrameFlyweight.java") && !name.equals("FrameDescriptor.java") &&
                FRAME_OFFSET.matcher(source).find())
            {
                offenders.add("frame offset in " + MAIN.relativize(file));
            }
            // Commands are written by the proxy (application threads) and read by the flyweight (the agent).
            if (!name.equals("CommandFlyweight.java") && !name.equals("CommandProxy.java") &&
                !name.equals("CommandDescriptor.java") && COMMAND_OFFSET.matcher(source).find())
            {
                offenders.add("command offset in " + MAIN.relativize(file));
            }
        }
        assertEquals(List.of(), offenders);
    }

    @Test
    void shouldNameNoAgentTypeInTheSpi()
    {
        final List<String> offenders = new ArrayList<>();
        for (final Path file : javaFiles(MAIN.resolve(Paths.get("io", "jfabric", "spi"))))
        {
            if (stripComments(read(file)).contains("io.jfabric.agent"))
            {
                offenders.add(file.getFileName().toString());
            }
        }
        assertEquals(List.of(), offenders, "SPI sources that import the agent");
    }

    @Test
    void shouldNameNoAgentTypeInAnApiOrSpiSignature() throws ClassNotFoundException
    {
        final List<String> offenders = new ArrayList<>();
        final List<Class<?>> types = new ArrayList<>();
        for (final String pkg : new String[]{"io.jfabric", "io.jfabric.spi"})
        {
            final Path dir = MAIN.resolve(pkg.replace('.', '/'));
            for (final Path file : javaFiles(dir))
            {
                if (!file.getParent().equals(dir) || file.getFileName().toString().equals("package-info.java"))
                {
                    continue;
                }
                final String simple = file.getFileName().toString().replace(".java", "");
                collect(Class.forName(pkg + "." + simple), types);
            }
        }
        assertTrue(types.size() > 40, "public API and SPI types found: " + types.size());
        for (final Class<?> type : types)
        {
            for (final Method m : type.getDeclaredMethods())
            {
                if (visible(m.getModifiers()))
                {
                    check(type.getName() + "." + m.getName(), m.getGenericReturnType(), offenders);
                    for (final Type p : m.getGenericParameterTypes())
                    {
                        check(type.getName() + "." + m.getName(), p, offenders);
                    }
                }
            }
            for (final Constructor<?> c : type.getDeclaredConstructors())
            {
                if (visible(c.getModifiers()))
                {
                    for (final Type p : c.getGenericParameterTypes())
                    {
                        check(type.getName() + ".<init>", p, offenders);
                    }
                }
            }
            for (final Field f : type.getDeclaredFields())
            {
                if (visible(f.getModifiers()))
                {
                    check(type.getName() + "." + f.getName(), f.getGenericType(), offenders);
                }
            }
            if (null != type.getSuperclass())
            {
                check(type.getName() + " extends", type.getGenericSuperclass(), offenders);
            }
            for (final Type i : type.getGenericInterfaces())
            {
                check(type.getName() + " implements", i, offenders);
            }
        }
        assertEquals(List.of(), offenders, "API or SPI members whose signature names an agent type");
    }

    @Test
    void shouldMakePublicOnlyTheAgentTypesAnotherRuntimePackageUses()
    {
        final List<Path> outside = javaFiles(MAIN).stream()
            .filter(file -> !file.getParent().equals(AGENT))
            .collect(Collectors.toList());
        final List<String> sources = new ArrayList<>();
        for (final Path file : outside)
        {
            sources.add(stripComments(read(file)));
        }
        final List<String> unused = new ArrayList<>();
        int publicTypes = 0;
        for (final Path file : javaFiles(AGENT))
        {
            final Matcher m = PUBLIC_TYPE.matcher(read(file));
            if (!file.getParent().equals(AGENT) || !m.find())
            {
                continue;
            }
            publicTypes++;
            final String type = m.group(1);
            if (TEST_AND_BENCH_ONLY.contains(type))
            {
                continue;
            }
            final Pattern use = Pattern.compile("import (?:static )?io\\.jfabric\\.agent\\." + type + "\\b|" +
                "\\bio\\.jfabric\\.agent\\." + type + "\\b");
            if (sources.stream().noneMatch(source -> use.matcher(source).find()))
            {
                unused.add(type);
            }
        }
        assertTrue(publicTypes > 0, "public agent types found");
        assertEquals(List.of(), unused, "public agent types no other runtime package uses (make them package-private)");
        final String packageInfo = read(AGENT.resolve("package-info.java"));
        assertTrue(packageInfo.contains("Internal"), "the agent's package-info marks it internal");
    }

    @Test
    void shouldNameNoProviderInTheRuntime()
    {
        final Pattern provider = Pattern.compile("\"(gni|shm|aeron)[\";]|parseGni|GNI_FIELDS");
        final List<String> offenders = new ArrayList<>();
        for (final Path file : javaFiles(MAIN))
        {
            final Matcher m = provider.matcher(stripComments(read(file)));
            if (m.find())
            {
                offenders.add(MAIN.relativize(file) + ": " + m.group());
            }
        }
        assertEquals(List.of(), offenders, "runtime code that names a provider");
    }

    private static boolean visible(final int modifiers)
    {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    private static void collect(final Class<?> type, final List<Class<?>> into)
    {
        if (!Modifier.isPublic(type.getModifiers()))
        {
            return;
        }
        into.add(type);
        for (final Class<?> nested : type.getDeclaredClasses())
        {
            collect(nested, into);
        }
    }

    private static void check(final String member, final Type type, final List<String> offenders)
    {
        if (type.getTypeName().contains("io.jfabric.agent."))
        {
            offenders.add(member + ": " + type.getTypeName());
        }
    }

    /**
     * Lines of code: not blank, not a {@code //} line, not inside a block comment or Javadoc.
     */
    static int codeLines(final String source)
    {
        int count = 0;
        boolean inComment = false;
        for (final String raw : source.split("\n", -1))
        {
            String line = raw.trim();
            if (inComment)
            {
                final int end = line.indexOf("*/");
                if (end < 0)
                {
                    continue;
                }
                inComment = false;
                line = line.substring(end + 2).trim();
            }
            while (line.startsWith("/*"))
            {
                final int end = line.indexOf("*/", 2);
                if (end < 0)
                {
                    inComment = true;
                    line = "";
                    break;
                }
                line = line.substring(end + 2).trim();
            }
            if (!line.isEmpty() && !line.startsWith("//"))
            {
                count++;
            }
        }
        return count;
    }

    private static String stripComments(final String source)
    {
        return source.replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("(?m)^\\s*//.*$", "");
    }

    private static List<Path> javaFiles(final Path root)
    {
        try (Stream<Path> files = Files.walk(root))
        {
            return files.filter(f -> f.toString().endsWith(".java")).sorted().collect(Collectors.toList());
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private static String read(final Path file)
    {
        try
        {
            return new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
