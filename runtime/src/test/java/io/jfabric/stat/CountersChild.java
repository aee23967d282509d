package io.jfabric.stat;

import io.jfabric.DomainAttr;
import io.jfabric.Domain;
import io.jfabric.Fabric;
import io.jfabric.FabricAttr;
import io.jfabric.Flags;
import io.jfabric.Info;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * The child JVM of the counters tests ({@link ChildJvm}):
 * <ul>
 *   <li>{@code read <file>}: prints {@code PID <pid>}, {@code LIVENESS <state>}, one line
 *   {@code COUNTER <id> <type> <value> <label>} per counter and {@code ERROR <count> <first line>} per distinct
 *   error of a counters file, then {@code DONE}.</li>
 *   <li>{@code hold}: opens an inproc domain, prints {@code FILE <path>}, waits for a line on stdin, closes the
 *   domain and prints {@code CLOSED}.</li>
 *   <li>{@code exit}: opens an inproc domain, prints {@code FILE <path>} and exits without closing it.</li>
 *   <li>{@code halt}: opens an inproc domain, prints {@code FILE <path>} and halts without shutdown hooks (as a
 *   killed process: the file stays, the kernel drops its lock).</li>
 * </ul>
 */
public final class CountersChild
{
    private CountersChild()
    {
    }

    /**
     * @param args the mode and its arguments.
     * @throws Exception on any failure (the test sees the exit status and stderr).
     */
    public static void main(final String[] args) throws Exception
    {
        switch (args[0])
        {
            case "read":
                read(Paths.get(args[1]));
                break;
            case "hold":
            case "halt":
            case "exit":
                final Info info = Fabric.getInfo(Info.builder().caps(Flags.MSG)
                    .fabricAttr(FabricAttr.builder().provName("inproc").build())
                    .domainAttr(DomainAttr.builder().build()).build()).get(0);
                final Fabric fabric = Fabric.open(info);
                final Domain domain = fabric.domain(info);
                System.out.println("FILE " + domain.counters().file().path());
                System.out.flush();
                if ("halt".equals(args[0]))
                {
                    Runtime.getRuntime().halt(0);
                }
                if ("exit".equals(args[0]))
                {
                    // The domain stays open: the shutdown hook removes the file.
                    System.exit(0);
                }
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
                domain.close();
                fabric.close();
                System.out.println("CLOSED");
                break;
            default:
                throw new IllegalArgumentException("unknown mode " + args[0]);
        }
    }

    private static void read(final Path file)
    {
        try (StatReader reader = StatReader.open(file))
        {
            System.out.println("PID " + reader.pid());
            System.out.println("LIVENESS " + reader.liveness());
            reader.forEachCounter((id, type, value, label) ->
                System.out.println("COUNTER " + id + " " + type + " " + value + " " + label));
            reader.readErrors((count, first, last, text) ->
                System.out.println("ERROR " + count + " " + text.lines().findFirst().orElse("")));
            System.out.println("DONE");
        }
    }
}
