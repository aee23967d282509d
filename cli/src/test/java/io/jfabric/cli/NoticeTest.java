package io.jfabric.cli;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The NOTICE names every library the shaded {@code jfabric.jar} bundles (the runtime dependencies Maven lists into
 * {@code target/bundled-dependencies.txt}), and the licence texts it points to are there.
 */
class NoticeTest
{
    private static final Pattern ARTIFACT = Pattern.compile("^\\s*([\\w.\\-]+):([\\w.\\-]+):jar:.*:(compile|runtime)");

    @Test
    void shouldNameEveryBundledLibraryInTheNotice() throws IOException
    {
        final String notice = Files.readString(Paths.get("..", "NOTICE"));
        final List<String> bundled = new ArrayList<>();
        for (final String line : Files.readAllLines(Paths.get("target", "bundled-dependencies.txt")))
        {
            final Matcher m = ARTIFACT.matcher(line);
            if (m.find())
            {
                bundled.add(m.group(1) + ":" + m.group(2));
            }
        }
        assertTrue(bundled.contains("org.agrona:agrona"), bundled.toString());
        assertTrue(bundled.contains("info.picocli:picocli"), bundled.toString());
        final List<String> missing = new ArrayList<>();
        for (final String artifact : bundled)
        {
            if (!notice.contains("(" + artifact + ")"))
            {
                missing.add(artifact);
            }
        }
        assertEquals(List.of(), missing, "bundled but not in NOTICE");
        final Path hdr = Paths.get("..", "licenses", "HdrHistogram-LICENSE.txt");
        assertTrue(Files.readString(hdr).contains("BSD 2-Clause"), hdr.toString());
        assertTrue(Files.readString(Paths.get("..", "LICENSE")).contains("Apache License"));
    }
}
