package io.jfabric.cli;

import io.jfabric.EndpointType;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Arrays;

/**
 * The parameters both sides of a ping-pong must agree on, as the client sends them to the server in its HELLO:
 * provider, endpoint type, tagged or untagged, iterations, warm-up round trips, data checks and the sizes, and the
 * client's process id (a provider whose endpoints reach only their own JVM, inproc, cannot serve another process).
 * Progress model and idle strategy are each side's own choice and are not exchanged.
 * <p>
 * Immutable.
 */
final class PingpongParams
{
    final String provider;
    final EndpointType epType;
    final boolean tagged;
    final int iterations;
    final int warmup;
    final boolean check;
    /** Process id of the side that made these parameters (the client's, on the server). */
    final long pid;
    private final int[] sizes;

    PingpongParams(
        final String provider, final EndpointType epType, final boolean tagged, final int iterations,
        final int warmup, final boolean check, final int[] sizes)
    {
        this(provider, epType, tagged, iterations, warmup, check, sizes, ProcessHandle.current().pid());
    }

    private PingpongParams(
        final String provider, final EndpointType epType, final boolean tagged, final int iterations,
        final int warmup, final boolean check, final int[] sizes, final long pid)
    {
        this.pid = pid;
        this.provider = provider;
        this.epType = epType;
        this.tagged = tagged;
        this.iterations = iterations;
        this.warmup = warmup;
        this.check = check;
        this.sizes = sizes.clone();
    }

    int sizeCount()
    {
        return sizes.length;
    }

    int size(final int i)
    {
        return sizes[i];
    }

    int maxSize()
    {
        int max = 0;
        for (final int s : sizes)
        {
            max = Math.max(max, s);
        }
        return max;
    }

    String op()
    {
        return tagged ? "tagged" : "msg";
    }

    void write(final DataOutputStream out) throws IOException
    {
        out.writeUTF(provider);
        out.writeUTF(epType.name());
        out.writeBoolean(tagged);
        out.writeInt(iterations);
        out.writeInt(warmup);
        out.writeBoolean(check);
        out.writeInt(sizes.length);
        for (final int s : sizes)
        {
            out.writeInt(s);
        }
        out.writeLong(pid);
    }

    static PingpongParams read(final DataInputStream in) throws IOException
    {
        final String provider = in.readUTF();
        final EndpointType epType;
        try
        {
            epType = EndpointType.valueOf(in.readUTF());
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IOException("unknown endpoint type in HELLO");
        }
        final boolean tagged = in.readBoolean();
        final int iterations = in.readInt();
        final int warmup = in.readInt();
        final boolean check = in.readBoolean();
        final int n = in.readInt();
        if (n < 1 || n > 1024 || iterations < 1 || warmup < 0)
        {
            throw new IOException("malformed HELLO (" + n + " sizes, " + iterations + " iterations)");
        }
        final int[] sizes = new int[n];
        for (int i = 0; i < n; i++)
        {
            sizes[i] = in.readInt();
            if (sizes[i] < 0)
            {
                throw new IOException("malformed HELLO (size " + sizes[i] + ")");
            }
        }
        return new PingpongParams(provider, epType, tagged, iterations, warmup, check, sizes, in.readLong());
    }

    /**
     * @return the sizes, as the table prints them ({@code 64, 1k, 4m}).
     */
    String sizesText()
    {
        final StringBuilder text = new StringBuilder();
        for (final int s : sizes)
        {
            text.append(text.length() > 0 ? ", " : "").append(PingpongResult.count(s));
        }
        return text.toString();
    }

    @Override
    public String toString()
    {
        return "provider " + provider + ", " + epType.fiName() + ", " + op() + ", " + iterations + " iterations, " +
            warmup + " warm-up, sizes " + Arrays.toString(sizes) + (check ? ", checked" : "");
    }
}
