package io.jfabric.provider.gni;

import io.jfabric.AddressVector;
import io.jfabric.CompletionEntry;
import io.jfabric.Errno;
import io.jfabric.Progress;
import io.jfabric.conformance.FlowControlConformance;
import io.jfabric.conformance.FlowNet;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static io.jfabric.conformance.Drive.one;
import static io.jfabric.conformance.Drive.post;
import static io.jfabric.conformance.Pair.direct;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link FlowControlConformance} over the {@code gni} provider. Overridden by its gni form: the 64k-message flood,
 * whose messages are 256-byte tinjects ({@link GniDifferences#INJECT_64}: {@code -EMSGSIZE} at post, nothing sent);
 * the same flood runs with 64-byte tinjects, the most gni injects.
 */
class GniFlowControlConformanceTest extends FlowControlConformance
{
    private static final int FLOOD_SIZE = 64;

    GniFlowControlConformanceTest()
    {
        super(GniConformance.FACTORY);
    }

    @Override
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    @DisplayName("gni INJECT_64: a 256 B tinject EMSGSIZE; 64k unexpected 64 B tinjects received in reverse windows")
    protected void shouldReceive64kUnexpectedMessagesInReverseTagOrderInWindowsOf16(final Progress progress)
    {
        final int messages = 65536;
        final int window = 16;
        try (FlowNet net = new FlowNet(factory, progress, 2, 4096))
        {
            assertEquals(Errno.EMSGSIZE.negated(), net.eps[1].tinject(direct(256), 0, 256, 0, 0));
            final UnsafeBuffer out = direct(FLOOD_SIZE);
            for (int i = 0; i < messages; i++)
            {
                final long tag = i;
                out.putLong(0, tag);
                out.putLong(8, ~tag);
                out.putLong(FLOOD_SIZE - 8, tag);
                post(() -> net.eps[1].tinject(out, 0, FLOOD_SIZE, 0, tag), net.open());
            }
            final UnsafeBuffer[] in = new UnsafeBuffer[window];
            for (int k = 0; k < window; k++)
            {
                in[k] = direct(FLOOD_SIZE);
            }
            final CompletionEntry entry = new CompletionEntry();
            for (int base = 0; base < messages; base += window)
            {
                for (int k = window - 1; k >= 0; k--)
                {
                    final int slot = k;
                    final long tag = base + k;
                    post(() -> net.eps[0].trecv(in[slot], 0, FLOOD_SIZE, AddressVector.ADDR_UNSPEC, tag, 0, slot),
                        net.open());
                }
                for (int done = 0; done < window; done++)
                {
                    final CompletionEntry e = one(net.rxCqs[0], net.open());
                    final int slot = (int) e.context();
                    final long tag = base + slot;
                    assertEquals(tag, e.tag(), "tag");
                    assertEquals(FLOOD_SIZE, e.len(), "length");
                    assertEquals(tag, in[slot].getLong(0), "payload");
                    assertEquals(~tag, in[slot].getLong(8), "payload");
                    assertEquals(tag, in[slot].getLong(FLOOD_SIZE - 8), "payload end");
                }
            }
            assertEquals(Errno.EAGAIN.negated(), net.rxCqs[0].read(entry));
        }
    }
}
