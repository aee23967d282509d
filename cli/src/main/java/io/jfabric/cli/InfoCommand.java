package io.jfabric.cli;

import io.jfabric.AddressFormat;
import io.jfabric.Configuration;
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
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code jfabric info}: discovery as {@code fi_info} does it, with the same flags. Prints the short form
 * per info, every attribute with {@code -v}, only the infos containing a text with {@code -i}, JSON with
 * {@code --json}, providers with {@code -l}, one default info per provider with {@code --prov-attr-only}
 * ({@code FI_PROV_ATTR_ONLY}). The current fi_info's {@code -t/--ep_type}, {@code -P/--port} and
 * {@code -s/--src_addr} are here as {@code -t}, {@code -P/--port} and {@code --src_addr} ({@code -e} and
 * {@code -s} keep jfabric's meanings, endpoint type and service). fi_info's {@code -e/--env} is {@code --env} here:
 * it lists every setting ({@code io.jfabric.Configuration}: the {@code JFABRIC_*} variable, its {@code -D} property,
 * default, meaning and the value set now) and {@code JFABRIC_JAVA_OPTS}; {@code -g/--getenv SUBSTR} lists those
 * whose names contain SUBSTR.
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

    @Option(names = { "-e", "-t", "--ep_type" }, paramLabel = "TYPE",
        description = "endpoint type: FI_EP_RDM or rdm (-t as the current fi_info)")
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

    @Option(names = { "-s", "-P", "--service", "--port" }, paramLabel = "SERVICE",
        description = "service: a port, or a name of /etc/services (-P/--port as fi_info)")
    private String service;

    @Option(names = "--src_addr", paramLabel = "ADDR",
        description = "source node name or address (fi_info -s): the node, resolved with FI_SOURCE")
    private String srcAddr;

    @Option(names = { "-f", "--fabric" }, paramLabel = "NAME", description = "fabric name")
    private String fabric;

    @Option(names = { "-d", "--domain" }, paramLabel = "NAME", description = "domain name")
    private String domain;

    @Option(names = { "-v", "--verbose" }, description = "print every attribute, as fi_info -v")
    private boolean verbose;

    @Option(names = { "-l", "--list" },
        description = "list the providers and their versions (FI_PROV_ATTR_ONLY, -p filters)")
    private boolean list;

    @Option(names = { "--prov-attr-only", "--prov_attr_only" },
        description = "print one default info per provider (FI_PROV_ATTR_ONLY), -p filters")
    private boolean provAttrOnly;

    @Option(names = { "-i", "--info" }, paramLabel = "SUBSTR",
        description = "verbose, only the infos whose text contains SUBSTR (case-insensitive)")
    private String infoFilter;

    @Option(names = "--env", description = "list every setting: JFABRIC_* variable, -D property, default, meaning")
    private boolean env;

    @Option(names = { "-g", "--getenv" }, paramLabel = "SUBSTR",
        description = "list the settings whose variable or property name contains SUBSTR (case-insensitive)")
    private String getenv;

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
        if (env || getenv != null)
        {
            return listSettings(out, err, getenv);
        }
        final String refusal = refusal();
        if (refusal != null)
        {
            err.println("jfabric info: " + refusal);
            err.flush();
            return JfabricCommand.EXIT_BAD_INPUT;
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
            if (list)
            {
                return listProviders(out, Fabric.getInfo(Version.CURRENT, null, null, Flags.PROV_ATTR_ONLY, hints));
            }
            final String node = srcAddr != null ? srcAddr : this.node;
            final long flags = (source || srcAddr != null ? Flags.SOURCE : 0) |
                (numericHost ? Flags.NUMERICHOST : 0) | (provAttrOnly ? Flags.PROV_ATTR_ONLY : 0);
            final List<Info> infos = Fabric.getInfo(Version.CURRENT, provAttrOnly ? null : node,
                provAttrOnly ? null : service, flags, hints);
            return print(out, err, infos);
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

    /**
     * {@code fi_info -e} for jfabric: one block per setting, {@code # NAME: type} then {@code # meaning}, the
     * property and default, and the value when one is set.
     */
    private static int listSettings(final PrintWriter out, final PrintWriter err, final String filter)
    {
        final String needle = null == filter ? "" : filter.toLowerCase(Locale.ROOT);
        int listed = 0;
        for (final Configuration.Setting setting : Configuration.settings())
        {
            final String variable = setting.environmentVariable();
            if (variable.toLowerCase(Locale.ROOT).contains(needle) ||
                setting.property().toLowerCase(Locale.ROOT).contains(needle))
            {
                printSetting(out, variable, setting.type(), setting.description(),
                    "-D" + setting.property() + ", default: " + setting.defaultValue(), setting.value(), listed++);
            }
        }
        if (Configuration.JAVA_OPTS_ENV.toLowerCase(Locale.ROOT).contains(needle))
        {
            printSetting(out, Configuration.JAVA_OPTS_ENV, "string",
                "extra JVM options of the ./jfabric launcher (heap, -D settings), placed before -jar",
                "environment only, default: none", System.getenv(Configuration.JAVA_OPTS_ENV), listed++);
        }
        out.flush();
        if (0 == listed)
        {
            err.println("jfabric info: no setting's name contains '" + filter + "'");
            err.flush();
            return JfabricCommand.EXIT_NO_MATCH;
        }
        return JfabricCommand.EXIT_OK;
    }

    private static void printSetting(
        final PrintWriter out,
        final String variable,
        final String type,
        final String description,
        final String where,
        final String value,
        final int index)
    {
        if (index > 0)
        {
            out.println();
        }
        out.println("# " + variable + ": " + type);
        out.println("# " + description);
        out.println("# " + where);
        if (null != value)
        {
            out.println("# set: " + value);
        }
    }

    /**
     * The one-line reason why the options cannot be served, or null: fi_info options that do not map onto
     * jfabric, and combinations that contradict each other.
     */
    private String refusal()
    {
        if (srcAddr != null && node != null)
        {
            return "--src_addr and -n/--node both name the node; give one (--src_addr is the node with FI_SOURCE)";
        }
        if (list && provAttrOnly)
        {
            return "-l/--list and --prov-attr-only both list the providers; give one";
        }
        if (provAttrOnly && (node != null || srcAddr != null || service != null))
        {
            return "--prov-attr-only takes no node or service (FI_PROV_ATTR_ONLY resolves no address)";
        }
        return null;
    }

    private int print(final PrintWriter out, final PrintWriter err, final List<Info> infos)
    {
        final List<Info> shown = new ArrayList<>();
        for (final Info info : infos)
        {
            if (infoFilter == null ||
                InfoFormat.verbose(info).toLowerCase(Locale.ROOT).contains(infoFilter.toLowerCase(Locale.ROOT)))
            {
                shown.add(info);
            }
        }
        if (shown.isEmpty())
        {
            err.println("jfabric info: no info contains '" + infoFilter + "' (-i)");
            err.flush();
            return JfabricCommand.EXIT_NO_MATCH;
        }
        if (json)
        {
            out.print(InfoJson.infos(shown));
        }
        else
        {
            for (final Info info : shown)
            {
                if (verbose || infoFilter != null)
                {
                    out.print(InfoFormat.verbose(info));
                }
                else if (provAttrOnly)
                {
                    // as fi_info prints provider-only infos: no endpoint type or protocol
                    final String summary = InfoFormat.summary(info);
                    out.print(summary.substring(0, summary.indexOf("    type: ")));
                }
                else
                {
                    out.print(InfoFormat.summary(info));
                }
            }
        }
        out.flush();
        return JfabricCommand.EXIT_OK;
    }

    private int listProviders(final PrintWriter out, final List<Info> providers)
    {
        if (json)
        {
            out.print(InfoJson.providers(providers));
        }
        else
        {
            for (final Info info : providers)
            {
                final FabricAttr p = info.fabricAttr();
                out.println(p.provName() + ":");
                out.println("    version: " + p.provVersion().major() + "." + p.provVersion().minor());
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
