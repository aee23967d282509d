package io.jfabric.cli;

import io.jfabric.Version;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.PrintWriter;

/**
 * The {@code jfabric} command: the top command with its subcommands ({@code info}, {@code pingpong} and
 * {@code bench} and {@code stat}), and picocli's {@code generate-completion}, which prints the bash/zsh
 * completion script ({@code source <(./jfabric generate-completion)}).
 * <p>
 * Exit codes: 0 success, 1 no match ({@code FI_ENODATA}) or failure, 2 bad input. Errors print one line,
 * never a stack trace.
 * <p>
 * Not thread-safe: one instance per invocation.
 */
@Command(
    name = "jfabric",
    mixinStandardHelpOptions = true,
    versionProvider = JfabricCommand.VersionProvider.class,
    description = "The OFI fabric interface for the JVM.",
    subcommands = {
        InfoCommand.class, PingpongCommand.class, BenchCommand.class, StatCommand.class,
        AutoComplete.GenerateCompletion.class })
public final class JfabricCommand implements Runnable
{
    /** Exit code of success. */
    public static final int EXIT_OK = 0;
    /** Exit code when nothing matches ({@code FI_ENODATA}) or an operation fails. */
    public static final int EXIT_NO_MATCH = 1;
    /** Exit code of bad input (unknown names, malformed options). */
    public static final int EXIT_BAD_INPUT = 2;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    /**
     * Without a subcommand: print the usage.
     */
    @Override
    public void run()
    {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /**
     * A command line with jfabric's error handling: one-line messages and the exit codes above.
     *
     * @param out where normal output goes.
     * @param err where error messages go.
     * @return the configured command line.
     */
    public static CommandLine commandLine(final PrintWriter out, final PrintWriter err)
    {
        final CommandLine cl = new CommandLine(new JfabricCommand());
        cl.setOut(out);
        cl.setErr(err);
        cl.setParameterExceptionHandler((ex, args) ->
        {
            final CommandLine c = ex.getCommandLine();
            // "jfabric pingpong: ...", as every other message of the command
            c.getErr().println(c.getCommandSpec().qualifiedName() + ": " + ex.getMessage() + " (see --help)");
            c.getErr().flush();
            return EXIT_BAD_INPUT;
        });
        cl.setExecutionExceptionHandler((ex, c, parseResult) ->
        {
            c.getErr().println(c.getCommandSpec().qualifiedName() + ": " + ex);
            c.getErr().flush();
            return EXIT_NO_MATCH;
        });
        return cl;
    }

    /**
     * Runs the command and exits with its code.
     *
     * @param args the arguments.
     */
    public static void main(final String[] args)
    {
        final PrintWriter out = new PrintWriter(System.out, true);
        final PrintWriter err = new PrintWriter(System.err, true);
        final int code = commandLine(out, err).execute(args);
        out.flush();
        err.flush();
        System.exit(code);
    }

    /**
     * The version lines of {@code --version}.
     */
    static final class VersionProvider implements CommandLine.IVersionProvider
    {
        @Override
        public String[] getVersion()
        {
            return versionLines();
        }
    }

    static String[] versionLines()
    {
        final String impl = JfabricCommand.class.getPackage().getImplementationVersion();
        return new String[] {
            "jfabric: " + (impl != null ? impl : "development build"),
            "ofi api: " + Version.CURRENT.major() + "." + Version.CURRENT.minor() };
    }
}
