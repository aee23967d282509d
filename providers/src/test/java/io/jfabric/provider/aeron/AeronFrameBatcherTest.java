package io.jfabric.provider.aeron;

import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.logbuffer.ControlledFragmentHandler;
import io.aeron.logbuffer.Header;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.collections.LongArrayList;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link AeronFrameBatcher} over a real exclusive publication and subscription (UDP loopback, one media driver):
 * small frames leave as batches in the order offered, a larger frame first sends the batch before it, a batch of one
 * is the frame alone, a receiver that refuses a frame mid-batch gets the rest (and nothing twice) when the batch
 * comes again, and a batch whose peer changed epoch is dropped, unless the change was carried over (a return mirrored,
 * a resynchronisation: the peer's publications carry on). Waits are bounded by deadlines, never timed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AeronFrameBatcherTest
{
    private static final int STREAM = 10;
    private static final int ENTRY = 1;
    private static final int SMALL = 32;
    private static final int LARGE = 400;
    private static final long SOURCE = 0x5EED_0000_0000_0001L;

    private MediaDriver driver;
    private Aeron aeron;
    private ExclusivePublication publication;
    private Subscription subscription;
    private AeronPeer peer;
    private AeronFrameBatcher batcher;
    private int refusals;
    private final UnsafeBuffer header = new UnsafeBuffer(new byte[16]);
    private final UnsafeBuffer payload = new UnsafeBuffer(new byte[LARGE]);
    private final LongArrayList received = new LongArrayList();
    private final LongArrayList lengths = new LongArrayList();
    private long refuseOnce = -1;
    private int refused;
    private int plainMessages;

    @BeforeEach
    void setUp() throws IOException
    {
        driver = AeronTests.startSharedDriver();
        aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(driver.aeronDirectoryName()));
        final int port;
        try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getLoopbackAddress()))
        {
            port = socket.getLocalPort();
        }
        final String channel = "aeron:udp?endpoint=127.0.0.1:" + port;
        subscription = aeron.addSubscription(channel, STREAM);
        publication = aeron.addExclusivePublication(channel, STREAM);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!(publication.isConnected() && subscription.isConnected()) && System.nanoTime() < deadline)
        {
            Thread.yield();
        }
        assertTrue(publication.isConnected(), "publication not connected");
        peer = new AeronPeer(ENTRY, new AeronAddress("127.0.0.1", port, STREAM, 0));
        peer.state = AeronPeer.LIVE;
        batcher = new AeronFrameBatcher(AeronConfiguration.datagramMtu(), (p, result) ->
        {
            refusals++;
            return 0;
        });
    }

    @AfterEach
    void tearDown()
    {
        CloseHelper.quietCloseAll(subscription, publication, aeron);
        AeronTests.stopSharedDriver(driver);
    }

    private long offer(final long seq, final int length)
    {
        header.putLong(0, seq);
        header.putLong(8, SOURCE);
        payload.putLong(0, seq * 3);
        payload.putLong(length - 16 - 8, ~seq);
        return batcher.offer(peer, 0, publication, header, 0, 16, payload, 0, length - 16);
    }

    private void offerDirect(final long seq, final int length)
    {
        header.putLong(0, seq);
        header.putLong(8, SOURCE);
        payload.putLong(0, seq * 3);
        payload.putLong(length - 16 - 8, ~seq);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (publication.offer(header, 0, 16, payload, 0, length - 16, null) < 0)
        {
            assertTrue(System.nanoTime() < deadline, "direct offer back-pressured for 10 s");
            Thread.yield();
        }
    }

    private void flushAll()
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        batcher.flush();
        while (batcher.pendingFrames() > 0)
        {
            assertTrue(System.nanoTime() < deadline, "batches still pending after 10 s");
            Thread.yield();
            batcher.flush();
        }
    }

    private boolean onFrame(final DirectBuffer buffer, final int offset, final int length, final int entry)
    {
        assertEquals(ENTRY, entry);
        final long seq = buffer.getLong(offset);
        if (seq == refuseOnce)
        {
            refuseOnce = -1;
            refused++;
            return false;
        }
        assertEquals(SOURCE, buffer.getLong(offset + 8));
        assertEquals(seq * 3, buffer.getLong(offset + 16), "payload of frame " + seq);
        assertEquals(~seq, buffer.getLong(offset + length - 8), "payload end of frame " + seq);
        received.addLong(seq);
        lengths.addLong(length);
        return true;
    }

    private ControlledFragmentHandler.Action onFragment(
        final DirectBuffer buffer, final int offset, final int length, final Header h)
    {
        if (AeronFrameBatcher.BATCH == h.reservedValue())
        {
            return batcher.deliver(buffer, offset, length, h, ENTRY, 0, false, this::onFrame);
        }
        plainMessages++;
        return onFrame(buffer, offset, length, ENTRY) ? ControlledFragmentHandler.Action.CONTINUE :
            ControlledFragmentHandler.Action.ABORT;
    }

    private void receive(final int count)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        final ControlledFragmentHandler handler = this::onFragment;
        while (received.size() < count)
        {
            assertTrue(System.nanoTime() < deadline, "received " + received.size() + " of " + count);
            if (0 == subscription.controlledPoll(handler, 4))
            {
                Thread.yield();
            }
        }
    }

    @Test
    void shouldSendSmallFramesAsBatchesInOrderAndAFrameAloneAsItself()
    {
        for (long seq = 0; seq < 50; seq++)
        {
            assertEquals(AeronFrameBatcher.ACCEPTED, offer(seq, SMALL));
        }
        // A large frame is not batched: the batch before it leaves first.
        assertEquals(AeronFrameBatcher.DIRECT, offer(50, LARGE));
        assertEquals(0, batcher.pendingFrames());
        offerDirect(50, LARGE);
        for (long seq = 51; seq < 100; seq++)
        {
            assertEquals(AeronFrameBatcher.ACCEPTED, offer(seq, SMALL));
        }
        flushAll();
        // 32-byte frames take 40 bytes of a batch: 34 fit one datagram (1376 bytes), so 34 + 16, then 34 + 15.
        assertEquals(4, batcher.batchesSent());
        assertEquals(99, batcher.framesBatched());
        receive(100);
        for (int i = 0; i < 100; i++)
        {
            assertEquals(i, received.getLong(i));
            assertEquals(50 == i ? LARGE : SMALL, lengths.getLong(i));
        }
        assertEquals(1, plainMessages);

        // One frame in a cycle leaves as that frame alone.
        assertEquals(AeronFrameBatcher.ACCEPTED, offer(100, SMALL));
        assertEquals(1, batcher.pendingFrames());
        flushAll();
        receive(101);
        assertEquals(100, received.getLong(100));
        assertEquals(2, plainMessages);
        assertEquals(4, batcher.batchesSent());
        assertEquals(0, refusals);
    }

    @Test
    void shouldResumeAnAbortedBatchAfterTheFramesAlreadyTaken()
    {
        for (long seq = 0; seq < 30; seq++)
        {
            assertEquals(AeronFrameBatcher.ACCEPTED, offer(seq, SMALL));
        }
        flushAll();
        refuseOnce = 17;
        receive(30);
        assertEquals(1, refused);
        assertEquals(30, received.size());
        for (int i = 0; i < 30; i++)
        {
            assertEquals(i, received.getLong(i), "frame " + i + " delivered once, in order");
        }
    }

    @Test
    void shouldDropABatchWhosePeerWentDownOrCameBack()
    {
        assertEquals(AeronFrameBatcher.ACCEPTED, offer(0, SMALL));
        assertEquals(AeronFrameBatcher.ACCEPTED, offer(1, SMALL));
        peer.epoch++;
        batcher.flush();
        assertEquals(0, batcher.pendingFrames());
        assertEquals(0, batcher.batchesSent());
        // The next frames go to the new epoch only.
        assertEquals(AeronFrameBatcher.ACCEPTED, offer(2, SMALL));
        assertEquals(AeronFrameBatcher.ACCEPTED, offer(3, SMALL));
        peer.epoch++;
        assertEquals(AeronFrameBatcher.ACCEPTED, offer(4, SMALL));
        flushAll();
        receive(1);
        assertEquals(4, received.getLong(0));
        assertEquals(1, received.size());
    }

    @Test
    void shouldSendABatchCarriedOverAReturnOrAResynchronisationAndDropItWhenThePeerFell()
    {
        // A mirrored return (LIVE throughout) with frames pending: the runtime counts them as sent, so they leave.
        assertEquals(AeronFrameBatcher.ACCEPTED, offer(0, SMALL));
        assertEquals(AeronFrameBatcher.ACCEPTED, offer(1, SMALL));
        peer.epoch += 2;
        batcher.carryOver(peer, peer.epoch - 2);
        assertEquals(AeronFrameBatcher.ACCEPTED, offer(2, SMALL));
        flushAll();
        // A resynchronisation: the peer is CONNECTING again (its hellos not yet said), the publication the same.
        assertEquals(AeronFrameBatcher.ACCEPTED, offer(3, SMALL));
        peer.epoch += 2;
        batcher.carryOver(peer, peer.epoch - 2);
        peer.state = AeronPeer.CONNECTING;
        flushAll();
        receive(4);
        assertEquals(4, received.size());
        for (int i = 0; i < 4; i++)
        {
            assertEquals(i, received.getLong(i), "frame " + i);
        }
        // A fall drops what was pending, as before.
        peer.state = AeronPeer.LIVE;
        assertEquals(AeronFrameBatcher.ACCEPTED, offer(4, SMALL));
        peer.state = AeronPeer.DOWN;
        batcher.flush();
        assertEquals(0, batcher.pendingFrames());
    }
}
