package io.jfabric.cli;

/**
 * Why a ping-pong stopped, as the one line the command prints, with its exit code
 * ({@link JfabricCommand#EXIT_BAD_INPUT} for bad input, {@link JfabricCommand#EXIT_NO_MATCH} for a failed run).
 * Control path only.
 */
final class PingpongFailure extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    private final int exitCode;

    PingpongFailure(final int exitCode, final String message)
    {
        super(message, null, false, false);
        this.exitCode = exitCode;
    }

    static PingpongFailure badInput(final String message)
    {
        return new PingpongFailure(JfabricCommand.EXIT_BAD_INPUT, message);
    }

    static PingpongFailure failed(final String message)
    {
        return new PingpongFailure(JfabricCommand.EXIT_NO_MATCH, message);
    }

    int exitCode()
    {
        return exitCode;
    }
}
