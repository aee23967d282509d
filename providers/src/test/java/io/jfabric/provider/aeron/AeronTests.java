package io.jfabric.provider.aeron;

import io.aeron.driver.MediaDriver;
import io.jfabric.AddressVector;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.Endpoint;
import io.jfabric.Errno;
import org.agrona.CloseHelper;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Helpers of the aeron tests: one media driver shared by the fabrics a test class opens (starting a driver per
 * fabric would cost a driver thread and its start-up per test on a 2-core machine), and the checked tagged stream
 * of the loss and delay tests.
 */
final class AeronTests
{
    /** Liveness timeout of the shared test driver and of the fabrics using it, milliseconds. */
    static final long LIVENESS_MS = 2000;
    /** Tag of {@link #streamInOrder}'s messages; the low byte names the sender. */
    static final long STREAM_TAG = 5L << 56;
    /** Receives {@link #streamInOrder} keeps posted. */
    static final int STREAM_POSTED = 256;

    private AeronTests()
    {
    }

    /**
     * Start a driver as the provider embeds it and point {@link AeronConfiguration#DIR_PROP} at it; the domains
     * reach each other by UDP loopback through it ({@link AeronConfiguration#IPC_PROP} false).
     *
     * @return the driver; close it with {@link #stopSharedDriver}.
     */
    static MediaDriver startSharedDriver()
    {
        return startSharedDriver(false);
    }

    /**
     * Start a driver as the provider embeds it and point {@link AeronConfiguration#DIR_PROP} at it.
     *
     * @param ipc true: the domains reach each other over {@code aeron:ipc}; false: by UDP loopback.
     * @return the driver; close it with {@link #stopSharedDriver}.
     */
    static MediaDriver startSharedDriver(final boolean ipc)
    {
        System.setProperty(AeronConfiguration.IPC_PROP, Boolean.toString(ipc));
        System.setProperty(AeronConfiguration.LIVENESS_TIMEOUT_PROP, Long.toString(LIVENESS_MS));
        final String dir = AeronFabricBackend.embeddedDirectory();
        final MediaDriver driver = MediaDriver.launch(AeronFabricBackend.driverContext(dir, LIVENESS_MS));
        System.setProperty(AeronConfiguration.DIR_PROP, dir);
        return driver;
    }

    /**
     * Stop a driver from {@link #startSharedDriver} (its directory is deleted) and clear the properties.
     *
     * @param driver the driver, or null.
     */
    static void stopSharedDriver(final MediaDriver driver)
    {
        System.clearProperty(AeronConfiguration.DIR_PROP);
        System.clearProperty(AeronConfiguration.IPC_PROP);
        System.clearProperty(AeronConfiguration.LIVENESS_TIMEOUT_PROP);
        CloseHelper.quietClose(driver);
    }

    /**
     * Stream {@code messages} tagged 8-byte sequence numbers from each sender to one receiver (tag
     * {@link #STREAM_TAG} plus the sender's index in the low byte, injected in bursts of up to 64 until
     * back-pressure) and check that each sender's arrive exactly once and in order, failing at any error completion
     * or when the stream does not end within {@code deadlineNs}. Shared by the loss and delay tests.
     *
     * @param receiver   the receiving endpoint.
     * @param receiverCq its completion queue (tagged format).
     * @param senders    the sending endpoints.
     * @param senderCqs  their completion queues.
     * @param dest       each sender's address of the receiver.
     * @param messages   messages per sender.
     * @param deadlineNs how long the stream may take, nanoseconds.
     * @param links      what the failure messages name besides the counts (the links' state), may be empty.
     * @return how long the stream took, milliseconds.
     */
    static long streamInOrder(
        final Endpoint receiver,
        final CompletionQueue receiverCq,
        final Endpoint[] senders,
        final CompletionQueue[] senderCqs,
        final long[] dest,
        final int messages,
        final long deadlineNs,
        final Supplier<String> links)
    {
        final int n = senders.length;
        final UnsafeBuffer[] slots = new UnsafeBuffer[STREAM_POSTED];
        for (int i = 0; i < STREAM_POSTED; i++)
        {
            slots[i] = AeronNode.direct(8);
            assertEquals(0, receiver.trecv(slots[i], 0, 8, AddressVector.ADDR_UNSPEC, STREAM_TAG, 0xFF, i));
        }
        final long[] next = new long[n];
        final int[] sent = new int[n];
        final UnsafeBuffer value = AeronNode.direct(8);
        final CompletionEntry entry = new CompletionEntry();
        final CompletionErrorEntry error = new CompletionErrorEntry();
        final long startNs = System.nanoTime();
        while (!allArrived(next, messages))
        {
            for (int s = 0; s < n; s++)
            {
                for (int burst = 0; burst < 64 && sent[s] < messages; burst++)
                {
                    value.putLong(0, sent[s]);
                    final int rc = senders[s].tinject(value, 0, 8, dest[s], STREAM_TAG | s);
                    if (Errno.EAGAIN.negated() == rc)
                    {
                        break;
                    }
                    assertEquals(0, rc, "tinject");
                    sent[s]++;
                }
                if (Errno.EAVAIL.negated() == senderCqs[s].read(entry))
                {
                    senderCqs[s].readErr(error);
                    fail("sender " + s + " error completion " + error.errno());
                }
            }
            int read;
            while (1 == (read = receiverCq.read(entry)))
            {
                final int from = (int) (entry.tag() & 0xFF);
                final int slot = (int) entry.context();
                final long seq = slots[slot].getLong(0);
                if (seq != next[from])
                {
                    fail("sender " + from + ": message " + seq + " arrived when " + next[from] +
                        " was expected (lost, duplicated or reordered)");
                }
                next[from]++;
                assertEquals(0, receiver.trecv(slots[slot], 0, 8, AddressVector.ADDR_UNSPEC, STREAM_TAG, 0xFF, slot));
            }
            if (Errno.EAVAIL.negated() == read)
            {
                receiverCq.readErr(error);
                fail("receiver error completion " + error.errno());
            }
            assertTrue(System.nanoTime() - startNs < deadlineNs, "stalled at " + Arrays.toString(next) + " of " +
                messages + " (sent " + Arrays.toString(sent) + "; " + links.get() + ")");
            Thread.yield();
        }
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
    }

    private static boolean allArrived(final long[] next, final int messages)
    {
        for (final long count : next)
        {
            if (count < messages)
            {
                return false;
            }
        }
        return true;
    }
}
