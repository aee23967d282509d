package io.jfabric.cli;

import io.jfabric.AddressFormat;
import io.jfabric.DomainAttr;
import io.jfabric.EndpointType;
import io.jfabric.Errno;
import io.jfabric.EpAttr;
import io.jfabric.FabricAttr;
import io.jfabric.FabricException;
import io.jfabric.Fabric;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.InfoFormat;
import io.jfabric.Mode;
import io.jfabric.Version;
import io.jfabric.spi.Provider;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code jfabric info}: discovery as {@code fi_info} does it, with the same flags. Prints the short form
 * per info, every attribute with {@code -v}, JSON with {@code --json}, providers with {@code -l}.
 * <p>
 * Exit codes: 0 success, 1 no match (the FI_ENODATA text), 2 bad input (one line listing the valid names).
 * <p>
 * Not thread-safe: one instance per invocation.
 */
@Command(
    name = "info",
    mixinStandardHelpOptions = false,
    description = "Discover fabric interfaces, as fi_info.")
public final class InfoCommand implements Callable<Integer>
{
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = { "-p", "--provider" }, paramLabel = "NAME", description = "provider name (a;b, or ^name)")
    private String provider;

    @Option(names = { "-e", "--ep_type" }, paramLabel = "TYPE", description = "endpoint type: FI_EP_RDM or rdm")
    private String epType;

    @Option(names = { "-c", "--caps" }, paramLabel = "CAPS",
        description = "capabilities: FI_MSG|FI_TAGGED or msg,tagged")
    private String caps;

    @Option(names = { "-m", "--mode" }, paramLabel = "MODE",
        description = "modes the application supports (default all)")
    private String mode;

    @Option(names = { "-a", "--addr_format" }, paramLabel = "FMT", description = "address format: FI_SOCKADDR_IN")
    private String addrFormat;

    @Option(names = { "-n", "--node" }, paramLabel = "NODE", description = "node name or address")
    private String node;

    @Option(names = { "-s", "--service" }, paramLabel = "SERVICE", description = "service name or port")
    private String service;

    @Option(names = { "-f", "--fabric" }, paramLabel = "NAME", description = "fabric name")
    private String fabric;

    @Option(names = { "-d", "--domain" }, paramLabel = "NAME", description = "domain name")
    private String domain;

    @Option(names = { "-v", "--verbose" }, description = "print every attribute, as fi_info -v")
    private boolean verbose;

    @Option(names = { "-l", "--list" }, description = "list the providers and their versions")
    private boolean list;

    @Option(names = "--source", description = "node/service name the local source (FI_SOURCE)")
    private boolean source;

    @Option(names = "--numerichost", description = "the node is a numeric address, no lookup (FI_NUMERICHOST)")
    private boolean numericHost;

    @Option(names = "--json", description = "print JSON")
    private boolean json;

    @Option(names = "--version", description = "print the library and API versions")
    private boolean version;

    @Option(names = { "-h", "--help" }, usageHelp = true, description = "show this help")
    private boolean help;

    /**
     * Runs the discovery and prints the result.
     *
     * @return the exit code.
     */
    @Override
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        if (version)
        {
            for (final String line : JfabricCommand.versionLines())
            {
                out.println(line);
            }
            out.flush();
            return JfabricCommand.EXIT_OK;
        }
        if (list)
        {
            return listProviders(out);
        }
        final Info hints;
        try
        {
            hints = hints();
        }
        catch (final FabricException ex)
        {
            err.println("jfabric info: " + ex.getMessage());
            err.flush();
            return JfabricCommand.EXIT_BAD_INPUT;
        }
        try
        {
            final long flags = (source ? Flags.SOURCE : 0) | (numericHost ? Flags.NUMERICHOST : 0);
            final List<Info> infos = Fabric.getInfo(Version.CURRENT, node, service, flags, hints);
            if (json)
            {
                out.print(InfoFormat.json(infos));
            }
            else
            {
                for (final Info info : infos)
                {
                    out.print(verbose ? InfoFormat.verbose(info) : InfoFormat.summary(info));
                }
            }
            out.flush();
            return JfabricCommand.EXIT_OK;
        }
        catch (final FabricException ex)
        {
            final Errno e = ex.errno();
            err.println("fi_getinfo: " + e.negated() + " (" + e.description() + "): " + ex.getMessage());
            err.flush();
            return e == Errno.EINVAL || e == Errno.EBADFLAGS ? JfabricCommand.EXIT_BAD_INPUT :
                JfabricCommand.EXIT_NO_MATCH;
        }
    }

    private int listProviders(final PrintWriter out)
    {
        final List<Provider> providers = Fabric.providers();
        if (json)
        {
            final StringBuilder sb = new StringBuilder("[");
            for (int i = 0; i < providers.size(); i++)
            {
                final Provider p = providers.get(i);
                sb.append(i == 0 ? "" : ", ").append("{\"name\": \"").append(p.name())
                    .append("\", \"version\": \"").append(p.version().major()).append('.')
                    .append(p.version().minor()).append("\"}");
            }
            out.println(sb.append(']'));
        }
        else
        {
            for (final Provider p : providers)
            {
                out.println(p.name() + ":");
                out.println("    version: " + p.version().major() + "." + p.version().minor());
            }
        }
        out.flush();
        return JfabricCommand.EXIT_OK;
    }

    /**
     * The hints the options describe. As fi_info, the modes default to all bits, so that a provider is
     * not hidden for needing a mode unless {@code -m} says the application lacks it.
     */
    private Info hints()
    {
        final Info.Builder b = Info.alloc().toBuilder();
        b.mode(mode != null ? Mode.parse(mode) : -1L);
        if (caps != null)
        {
            b.caps(Flags.parse(caps));
        }
        if (addrFormat != null)
        {
            b.addrFormat(AddressFormat.parse(addrFormat));
        }
        if (epType != null)
        {
            b.epAttr(EpAttr.builder().type(EndpointType.parse(epType)).build());
        }
        if (domain != null)
        {
            b.domainAttr(DomainAttr.builder().name(domain).build());
        }
        if (provider != null || fabric != null)
        {
            b.fabricAttr(FabricAttr.builder().provName(provider).name(fabric).build());
        }
        return b.build();
    }
}
