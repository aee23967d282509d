package io.jfabric.aries;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * The directory of an emulated system, shared by every process of it through a folder (the emulator's
 * counterpart of upstream's {@code /tmp/gnix_vmdh_info}, GNI.md §5.2). Per node (device address) it maps each
 * attached (device address, inst id) to the wire address of the process that owns it, hands out unique inst ids
 * and node ranks, and keeps the node's vMDH table: at most {@value #VMDH_PTAGS_PER_NODE} ptags, each with a
 * bitmap of {@value #VMDH_KEYS_PER_PTAG} slots.
 * <p>
 * Every entry is one file created atomically (a hard link of a fully written temporary file), so concurrent
 * processes never see half an entry and two claims of the same name never both succeed.
 * <p>
 * Threading: thread-safe and process-safe; control path only (file system calls).
 */
public final class NodeDirectory
{
    /** Ptags with vMDH registrations per node ({@code MAX_VMDH_TAGS}, {@code src/gnix_auth_key.c:50-51}). */
    public static final int VMDH_PTAGS_PER_NODE = 4;
    /** vMDH slots per ptag and node (a 12-bit index). */
    public static final int VMDH_KEYS_PER_PTAG = 4096;
    /** Largest inst id: a CQ entry carries 24 bits. */
    public static final int MAX_INST_ID = 0xFF_FFFF;

    private final Path root;

    /**
     * @param root the folder shared by the processes of the emulated system (created if absent).
     */
    public NodeDirectory(final Path root)
    {
        this.root = root;
        try
        {
            Files.createDirectories(root);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * @return the folder.
     */
    public Path root()
    {
        return root;
    }

    /**
     * Claim an inst id on a node.
     *
     * @param device the node's device address.
     * @param instId the id.
     * @return true when claimed, false when another CDM holds it.
     */
    public boolean claimInstId(final int device, final int instId)
    {
        return instId >= 0 && instId <= MAX_INST_ID && create(node(device).resolve("inst-" + instId), "");
    }

    /**
     * Allocate the lowest free inst id (from 1) on a node.
     *
     * @param device the node's device address.
     * @return the id, claimed.
     * @throws GniException ERROR_RESOURCE when all 2^24 are taken.
     */
    public int allocateInstId(final int device)
    {
        for (int id = 1; id <= MAX_INST_ID; id++)
        {
            if (claimInstId(device, id))
            {
                return id;
            }
        }
        throw new GniException(GniRc.ERROR_RESOURCE, "no free inst id on node " + device);
    }

    /**
     * Release an inst id and its wire address.
     *
     * @param device the node.
     * @param instId the id.
     */
    public void releaseInstId(final int device, final int instId)
    {
        delete(node(device).resolve("inst-" + instId));
        delete(node(device).resolve("wire-" + instId));
    }

    /**
     * Publish the wire address of an attached CDM.
     *
     * @param device      the node.
     * @param instId      its inst id (claimed).
     * @param wireAddress the owning process's wire address.
     */
    public void publish(final int device, final int instId, final byte[] wireAddress)
    {
        final Path path = node(device).resolve("wire-" + instId);
        delete(path);
        create(path, new String(wireAddress, StandardCharsets.US_ASCII));
    }

    /**
     * @param device the node.
     * @param instId an inst id.
     * @return the wire address of the process owning (device, instId), or null when none is attached.
     */
    public byte[] lookup(final int device, final int instId)
    {
        try
        {
            return Files.readAllBytes(node(device).resolve("wire-" + instId));
        }
        catch (final NoSuchFileException ex)
        {
            return null;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * Allocate the lowest free rank on a node (ranks partition per-node key spaces, GNI.md §2.8).
     *
     * @param device the node.
     * @return the rank, from 0.
     */
    public int allocateNodeRank(final int device)
    {
        for (int rank = 0; ; rank++)
        {
            if (create(node(device).resolve("rank-" + rank), ""))
            {
                return rank;
            }
        }
    }

    /**
     * Release a rank.
     *
     * @param device the node.
     * @param rank   the rank.
     */
    public void releaseNodeRank(final int device, final int rank)
    {
        delete(node(device).resolve("rank-" + rank));
    }

    /**
     * Reserve a vMDH table on a node for a ptag: the first call per ptag takes one of the node's
     * {@value #VMDH_PTAGS_PER_NODE} tables, later ones find it.
     *
     * @param device the node.
     * @param ptag   the ptag.
     * @return the table's slot, 0 to 3, or -1 when four other ptags hold them all.
     */
    public int claimVmdhPtag(final int device, final int ptag)
    {
        for (int attempt = 0; attempt < 2; attempt++)
        {
            for (int slot = 0; slot < VMDH_PTAGS_PER_NODE; slot++)
            {
                final Path path = node(device).resolve("vmdh-" + slot);
                final byte[] owner = read(path);
                if (null != owner && Integer.toString(ptag).equals(new String(owner, StandardCharsets.US_ASCII)))
                {
                    return slot;
                }
            }
            for (int slot = 0; slot < VMDH_PTAGS_PER_NODE; slot++)
            {
                if (create(node(device).resolve("vmdh-" + slot), Integer.toString(ptag)))
                {
                    return slot;
                }
            }
        }
        return -1;
    }

    /**
     * Claim one slot of a ptag's vMDH bitmap on a node.
     *
     * @param device the node.
     * @param ptag   the ptag (its table claimed).
     * @param index  the slot, below {@value #VMDH_KEYS_PER_PTAG}.
     * @return true when claimed, false when in use.
     */
    public boolean claimVmdhKey(final int device, final int ptag, final int index)
    {
        return create(node(device).resolve("vmdh-" + ptag + "-" + index), "");
    }

    /**
     * Release a vMDH slot.
     *
     * @param device the node.
     * @param ptag   the ptag.
     * @param index  the slot.
     */
    public void releaseVmdhKey(final int device, final int ptag, final int index)
    {
        delete(node(device).resolve("vmdh-" + ptag + "-" + index));
    }

    private Path node(final int device)
    {
        final Path node = root.resolve("node-" + Integer.toHexString(device));
        try
        {
            Files.createDirectories(node);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return node;
    }

    private static boolean create(final Path path, final String content)
    {
        try
        {
            final Path tmp = Files.createTempFile(path.getParent(), ".tmp", null);
            try
            {
                Files.writeString(tmp, content, StandardCharsets.US_ASCII);
                Files.createLink(path, tmp);
                return true;
            }
            catch (final FileAlreadyExistsException ex)
            {
                return false;
            }
            finally
            {
                Files.deleteIfExists(tmp);
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private static byte[] read(final Path path)
    {
        try
        {
            return Files.readAllBytes(path);
        }
        catch (final NoSuchFileException ex)
        {
            return null;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private static void delete(final Path path)
    {
        try
        {
            Files.deleteIfExists(path);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

}
