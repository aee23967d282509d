package io.jfabric.provider.aeron;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Packet loss on the namespace hosts' links without {@code sch_netem}: an iptables rule in a host's namespace,
 * {@code -A INPUT -p udp -m statistic --mode random --probability p -j DROP}, drops that share of the UDP packets the
 * host receives (data, NAKs, status messages and retransmissions alike), so each direction of each link loses
 * {@code p} of its packets. The kernel's {@code statistic} match ({@code /proc/net/ip_tables_matches}) is enough;
 * no delay is possible this way. {@link #available} installs Debian's {@code iptables} package when the command is
 * missing and the test runs as root with {@code apt-get} (as {@code .ci/run} does), and tries the nf_tables front
 * end first, then the legacy one.
 * <p>
 * Threading: one test thread.
 */
final class IptablesLoss
{
    private static final String[] FRONT_ENDS = {"iptables", "iptables-legacy"};

    private final NetNamespaces hosts;
    private String iptables;

    /**
     * @param hosts the namespaces.
     */
    IptablesLoss(final NetNamespaces hosts)
    {
        this.hosts = hosts;
    }

    /**
     * Make sure an {@code iptables} command exists, installing the Debian package when it is missing and we may.
     *
     * @return null when one is there, else why not.
     */
    static String available()
    {
        if (null == run(List.of("iptables", "-V"), 20))
        {
            return null;
        }
        if (null != run(List.of("sh", "-c", "[ \"$(id -u)\" = 0 ]"), 5))
        {
            return "iptables is missing and this user is not root (cannot install it)";
        }
        if (null != run(List.of("sh", "-c", "command -v apt-get"), 5))
        {
            return "iptables is missing and there is no apt-get to install it";
        }
        final String installed = run(List.of("sh", "-c", "DEBIAN_FRONTEND=noninteractive apt-get install -y -qq " +
            "iptables || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iptables)"), 240);
        return null == installed ? run(List.of("iptables", "-V"), 20) : "apt-get install iptables failed: " + installed;
    }

    /**
     * Drop a share of the UDP packets each host receives.
     *
     * @param probability the share, 0 to 1.
     * @return null when every host has the rule, else the kernel's answer.
     */
    String dropUdp(final double probability)
    {
        String refused = null;
        for (final String frontEnd : FRONT_ENDS)
        {
            refused = null;
            for (int i = 0; i < hosts.count() && null == refused; i++)
            {
                refused = run(hosts.inHost(i, List.of(frontEnd, "-A", "INPUT", "-p", "udp", "-m", "statistic",
                    "--mode", "random", "--probability", Double.toString(probability), "-j", "DROP")), 20);
            }
            if (null == refused)
            {
                iptables = frontEnd;
                return null;
            }
            for (int i = 0; i < hosts.count(); i++)
            {
                run(hosts.inHost(i, List.of(frontEnd, "-F", "INPUT")), 20);
            }
        }
        return refused;
    }

    /**
     * @return the UDP packets the rules dropped on all hosts so far.
     */
    long dropped()
    {
        long sum = 0;
        for (int i = 0; i < hosts.count(); i++)
        {
            final List<String> command = hosts.inHost(i, List.of(iptables, "-L", "INPUT", "-v", "-n", "-x"));
            for (final String line : output(command).split("\n"))
            {
                final String[] words = line.trim().split("\\s+");
                if (words.length > 2 && "DROP".equals(words[2]) && words[0].matches("[0-9]+"))
                {
                    sum += Long.parseLong(words[0]);
                }
            }
        }
        return sum;
    }

    private static String output(final List<String> command)
    {
        try
        {
            final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            final String text = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            process.waitFor(20, TimeUnit.SECONDS);
            return text;
        }
        catch (final IOException ex)
        {
            return "";
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    /**
     * @return null when the command exited 0 within the time, else its output and status.
     */
    private static String run(final List<String> command, final long seconds)
    {
        try
        {
            final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            final List<String> lines = new ArrayList<>();
            final Thread reader = new Thread(() ->
            {
                final String text = readAll(process);
                synchronized (lines)
                {
                    lines.add(text);
                }
            }, "iptables-output");
            reader.setDaemon(true);
            reader.start();
            if (!process.waitFor(seconds, TimeUnit.SECONDS))
            {
                process.destroyForcibly();
                return "timed out after " + seconds + " s";
            }
            if (0 == process.exitValue())
            {
                return null;
            }
            // The output to its end: the reader may still be behind the exit (1 s was not always enough under load).
            reader.join(TimeUnit.SECONDS.toMillis(seconds));
            synchronized (lines)
            {
                return "exit " + process.exitValue() + ": " + String.join("", lines).trim();
            }
        }
        catch (final IOException ex)
        {
            return ex.toString();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return ex.toString();
        }
    }

    private static String readAll(final Process process)
    {
        try
        {
            return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            return "";
        }
    }
}
