package io.jfabric.aries;

import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.zip.CRC32;

/**
 * A child JVM of {@link AriesShmMultiProcessTest}: node 2 (inst id 2) on the shm wire, its NIC engine running
 * autonomously on its own thread (remote PUT/GET/AMO need nothing from this program's main thread), an endpoint
 * bound to node 1 inst 1 with a paired mailbox, and a 1 MiB registered region whose address and handle it prints
 * as {@code READY <address> <qword1> <qword2>}. Commands on stdin, one answer line each:
 * {@code ECHO n} (send back the next n SMSG messages), {@code CRC offset length}, {@code LONG offset}, {@code EXIT}.
 * Every wait has a deadline; a failure answers {@code ERROR ...}.
 */
public final class AriesChild
{
    static final int REGION = 1 << 20;
    private static final long DEADLINE_NS = 60_000_000_000L;

    private AriesChild()
    {
    }

    /**
     * @param args directory folder, shm domain name.
     * @throws Exception on I/O failure.
     */
    public static void main(final String[] args) throws Exception
    {
        final NodeDirectory directory = new NodeDirectory(Paths.get(args[0]));
        final JobRegistry jobs = new JobRegistry().register(AriesFixture.COOKIE, AriesFixture.PTAG);
        final AriesNode node = AriesNode.open(new AriesNode.Context()
            .deviceAddress(2).directory(directory).jobs(jobs).wire(ShmAriesWire.open(args[1])));
        final AgentRunner runner = new AgentRunner(
            new BackoffIdleStrategy(10, 20, 1_000, 1_000_000), Throwable::printStackTrace, null, node.agent());
        AgentRunner.startOnThread(runner);
        final GniNic nic = node.cdmCreate(2, AriesFixture.PTAG, AriesFixture.COOKIE, Cdm.MODE_ERR_NO_KILL).attach(0);
        final GniCq tx = nic.cqCreate(128);
        final GniCq rx = nic.cqCreate(1024);
        final GniEp ep = nic.epCreate(tx);
        ep.bind(1, 1);
        final SmsgAttr local = new SmsgAttr();
        local.rxCq = rx;
        ep.smsgInit(local, new SmsgAttr());
        final UnsafeBuffer region = AriesFixture.memory(REGION);
        final MemHandle handle = AriesFixture.register(nic, region, 0);
        final UnsafeBuffer copy = new UnsafeBuffer(ByteBuffer.allocateDirect(SmsgAttr.DEFAULT_MSG_MAX_SIZE));
        final IdleStrategy idle = new BackoffIdleStrategy(10, 20, 1_000, 100_000);
        System.out.println("READY " + region.addressOffset() + " " + handle.qword1() + " " + handle.qword2());
        System.out.flush();
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        String line;
        while (null != (line = in.readLine()))
        {
            final String[] words = line.trim().split(" ");
            try
            {
                switch (words[0])
                {
                    case "ECHO":
                    {
                        final int n = Integer.parseInt(words[1]);
                        final long deadline = System.nanoTime() + DEADLINE_NS;
                        for (int i = 0; i < n; i++)
                        {
                            while (GniRc.SUCCESS != ep.smsgGetNextWTag(GniEp.SMSG_ANY_TAG))
                            {
                                check(deadline, "message " + i);
                                idle.idle();
                            }
                            final int length = ep.smsgMessage().capacity();
                            copy.putBytes(0, ep.smsgMessage(), 0, length);
                            final int tag = ep.smsgTag();
                            ep.smsgRelease();
                            while (GniRc.SUCCESS != ep.smsgSendWTag(null, 0, 0, copy, 0, length, i, tag))
                            {
                                drain(tx);
                                drain(rx);
                                check(deadline, "credit for echo " + i);
                                idle.idle();
                            }
                            drain(tx);
                            drain(rx);
                        }
                        System.out.println("ECHOED " + n);
                        break;
                    }
                    case "CRC":
                    {
                        final CRC32 crc = new CRC32();
                        final int offset = Integer.parseInt(words[1]);
                        final int length = Integer.parseInt(words[2]);
                        final byte[] bytes = new byte[length];
                        region.getBytes(offset, bytes);
                        crc.update(bytes);
                        System.out.println("CRC " + crc.getValue());
                        break;
                    }
                    case "LONG":
                        System.out.println("LONG " + region.getLongVolatile(Integer.parseInt(words[1])));
                        break;
                    case "STATS":
                        System.out.println("STATS " + node.stats().protectionNacks() + " " +
                            node.stats().posts(TransactionKind.SMSG));
                        break;
                    case "EXIT":
                        runner.close();
                        node.close();
                        System.out.println("BYE");
                        System.out.flush();
                        return;
                    default:
                        System.out.println("ERROR unknown command " + line);
                        break;
                }
            }
            catch (final RuntimeException ex)
            {
                System.out.println("ERROR " + ex);
            }
            System.out.flush();
        }
        runner.close();
        node.close();
    }

    private static void drain(final GniCq cq)
    {
        int rc;
        while (GniRc.NOT_DONE != (rc = cq.getEvent()))
        {
            if (GniRc.TRANSACTION_ERROR == rc)
            {
                throw new IllegalStateException("transaction error " + Long.toHexString(cq.event()));
            }
        }
    }

    private static void check(final long deadline, final String what)
    {
        if (System.nanoTime() - deadline > 0)
        {
            throw new IllegalStateException("deadline waiting for " + what);
        }
    }
}
