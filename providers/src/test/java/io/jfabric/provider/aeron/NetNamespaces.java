package io.jfabric.provider.aeron;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Hosts as Linux network namespaces for the aeron tests: {@code n} namespaces, each with one veth link into a
 * bridge that lives in a switch namespace of its own (nothing is added to the test's own namespace), addresses
 * {@code 10.77.0.1} to {@code 10.77.0.n} on a /24. Needs root and iproute2 ({@code ip}); {@link #create} skips the
 * test with the reason when the kernel or the user cannot make namespaces. Names carry this process's id, so that
 * runs of several worktrees do not collide; {@link #close} deletes them (a JVM shutdown hook too).
 * <p>
 * Threading: one test thread.
 */
final class NetNamespaces implements AutoCloseable
{
    private final String prefix;
    private final int count;
    private final List<String> created = new ArrayList<>();
    private final Thread cleanup;

    private NetNamespaces(final String prefix, final int count)
    {
        this.prefix = prefix;
        this.count = count;
        this.cleanup = new Thread(this::deleteAll, "netns-cleanup");
    }

    /**
     * Make {@code count} hosts joined by a bridge, or skip the test (JUnit assumption) naming why not.
     *
     * @param count hosts, 1 to 8.
     * @return the namespaces.
     */
    static NetNamespaces create(final int count)
    {
        Assumptions.assumeTrue(System.getProperty("os.name").toLowerCase().contains("linux"),
            "network namespaces need Linux");
        final String ip = run(List.of("ip", "-V"));
        Assumptions.assumeTrue(null == ip, "iproute2 is missing (ip -V: " + ip + "); .ci/run installs it");
        final NetNamespaces ns = new NetNamespaces("jfa" + ProcessHandle.current().pid() + "x", count);
        final String refused = ns.command("ip", "netns", "add", ns.switchName());
        if (null != refused)
        {
            Assumptions.abort("the kernel or user refuses network namespaces: " + refused);
        }
        ns.created.add(ns.switchName());
        Runtime.getRuntime().addShutdownHook(ns.cleanup);
        try
        {
            ns.must("ip", "-n", ns.switchName(), "link", "add", "br0", "type", "bridge");
            ns.must("ip", "-n", ns.switchName(), "link", "set", "br0", "up");
            for (int i = 0; i < count; i++)
            {
                final String host = ns.host(i);
                ns.must("ip", "netns", "add", host);
                ns.created.add(host);
                ns.must("ip", "link", "add", "eth0", "netns", host, "type", "veth", "peer", "name", "p" + i, "netns",
                    ns.switchName());
                ns.must("ip", "-n", ns.switchName(), "link", "set", "p" + i, "master", "br0");
                ns.must("ip", "-n", ns.switchName(), "link", "set", "p" + i, "up");
                ns.must("ip", "-n", host, "addr", "add", ns.address(i) + "/24", "dev", "eth0");
                ns.must("ip", "-n", host, "link", "set", "eth0", "up");
                ns.must("ip", "-n", host, "link", "set", "lo", "up");
            }
        }
        catch (final RuntimeException ex)
        {
            ns.close();
            throw ex;
        }
        return ns;
    }

    /**
     * @param i a host, 0 to count - 1.
     * @return its namespace's name.
     */
    String host(final int i)
    {
        return prefix + i;
    }

    /**
     * @param i a host.
     * @return its IPv4 address.
     */
    String address(final int i)
    {
        return "10.77.0." + (i + 1);
    }

    /**
     * @return how many hosts.
     */
    int count()
    {
        return count;
    }

    private String switchName()
    {
        return prefix + "sw";
    }

    /**
     * Take a host's link down or up (from the switch side, so the host sees its carrier go).
     *
     * @param i  the host.
     * @param up true for up.
     */
    void link(final int i, final boolean up)
    {
        must("ip", "-n", switchName(), "link", "set", "p" + i, up ? "up" : "down");
    }

    /**
     * Put a {@code tc netem} qdisc on a host's link.
     *
     * @param i    the host.
     * @param args netem's arguments ({@code loss 10% delay 5ms 2ms}).
     * @return null, or why the kernel refused (no {@code sch_netem}).
     */
    String netem(final int i, final String... args)
    {
        final List<String> command = new ArrayList<>(List.of("ip", "netns", "exec", host(i), "tc", "qdisc", "add",
            "dev", "eth0", "root", "netem"));
        command.addAll(List.of(args));
        return run(command);
    }

    /**
     * @param i       the host.
     * @param command a command.
     * @return the command run inside the host's namespace.
     */
    List<String> inHost(final int i, final List<String> command)
    {
        final List<String> wrapped = new ArrayList<>(List.of("ip", "netns", "exec", host(i)));
        wrapped.addAll(command);
        return wrapped;
    }

    private String command(final String... command)
    {
        return run(List.of(command));
    }

    private void must(final String... command)
    {
        final String failed = command(command);
        if (null != failed)
        {
            throw new IllegalStateException(String.join(" ", command) + ": " + failed);
        }
    }

    /**
     * Run a command to its end (at most 20 s).
     *
     * @return null when it exited 0, else its output and status.
     */
    private static String run(final List<String> command)
    {
        try
        {
            final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            final byte[] output = process.getInputStream().readAllBytes();
            if (!process.waitFor(20, TimeUnit.SECONDS))
            {
                process.destroyForcibly();
                return "timed out";
            }
            return 0 == process.exitValue() ? null :
                "exit " + process.exitValue() + ": " + new String(output, StandardCharsets.UTF_8).trim();
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

    private void deleteAll()
    {
        for (int i = created.size() - 1; i >= 0; i--)
        {
            run(List.of("ip", "netns", "del", created.get(i)));
        }
        created.clear();
    }

    /**
     * Delete the namespaces (their links go with them).
     */
    @Override
    public void close()
    {
        deleteAll();
        try
        {
            Runtime.getRuntime().removeShutdownHook(cleanup);
        }
        catch (final IllegalStateException ex)
        {
            // shutting down: the hook runs anyway
        }
    }
}
