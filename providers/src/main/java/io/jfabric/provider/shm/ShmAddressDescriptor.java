package io.jfabric.provider.shm;

/**
 * The binary form of a shm address (72 bytes, little-endian), accepted wherever the text form
 * {@code fi_shm://<name>[:<endpoint>]} is:
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------+---------------+-------------------------------+
 *  |  marker 0x00  |  version (1)  |        endpoint index         |  0
 *  +---------------+---------------+-------------------------------+
 *  |                          name length                          |  4
 *  +---------------------------------------------------------------+
 *  |                 name, ASCII, zero-padded to 64                |  8
 *  +---------------------------------------------------------------+
 * </pre>
 * The leading zero byte never starts a text address, so the two forms cannot be confused.
 */
final class ShmAddressDescriptor
{
    static final int MARKER_OFFSET = 0;
    static final int VERSION_OFFSET = 1;
    static final int ENDPOINT_OFFSET = 2;
    static final int NAME_LENGTH_OFFSET = 4;
    static final int NAME_OFFSET = 8;
    /** Length of a binary address. */
    static final int LENGTH = NAME_OFFSET + ShmRingDescriptor.MAX_NAME_LENGTH;
    static final byte MARKER = 0;
    static final byte VERSION = 1;

    private ShmAddressDescriptor()
    {
    }
}
