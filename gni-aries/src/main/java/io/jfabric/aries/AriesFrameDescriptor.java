package io.jfabric.aries;

/**
 * The layout of a frame between NIC engines: a fixed little-endian header followed by the payload.
 * <pre>
 *   0       1       2       3       4               8
 *  +-------+-------+-------+-------+---------------+
 *  | kind  | flags | ptag  |status |    cookie     |
 *  +-------+-------+-------+-------+---------------+
 *  8 src device | 12 src inst id | 16 dst device | 20 dst inst id
 *  24 transaction id (slot | generation << 20)  | 28 payload length (this frame)
 *  32 address (target address of this frame's first byte)
 *  40 memory handle qword1 | 48 memory handle qword2
 *  56 transaction start address (bounds are checked for the whole transaction)
 *  64 transaction length
 *  72 operand 1 | 80 operand 2 | 88 aux (AMO command, SMSG msg id and tag, datagram id)
 *  96 payload ...
 * </pre>
 * Byte 1 is the flags byte, never an opcode that a runtime transport would interpret; a wire that needs its own
 * envelope adds it around the whole frame ({@link ShmAriesWire}).
 */
final class AriesFrameDescriptor
{
    static final byte DGRAM_REQ = 1;
    static final byte DGRAM_RESP = 2;
    static final byte SMSG = 3;
    static final byte CREDIT = 4;
    static final byte PUT = 5;
    static final byte GET_REQ = 6;
    static final byte GET_DATA = 7;
    static final byte AMO_REQ = 8;
    static final byte AMO_RESP = 9;
    static final byte CQWRITE = 10;
    static final byte ACK = 11;
    static final byte NACK = 12;

    static final byte FLAG_LAST = 1;
    static final byte FLAG_RECOVERABLE = 2;

    static final int KIND_OFFSET = 0;
    static final int FLAGS_OFFSET = 1;
    static final int PTAG_OFFSET = 2;
    static final int STATUS_OFFSET = 3;
    static final int COOKIE_OFFSET = 4;
    static final int SRC_DEVICE_OFFSET = 8;
    static final int SRC_INST_OFFSET = 12;
    static final int DST_DEVICE_OFFSET = 16;
    static final int DST_INST_OFFSET = 20;
    static final int TXN_OFFSET = 24;
    static final int LENGTH_OFFSET = 28;
    static final int ADDRESS_OFFSET = 32;
    static final int MH1_OFFSET = 40;
    static final int MH2_OFFSET = 48;
    static final int START_OFFSET = 56;
    static final int TOTAL_OFFSET = 64;
    static final int OP1_OFFSET = 72;
    static final int OP2_OFFSET = 80;
    static final int AUX_OFFSET = 88;
    static final int HEADER_LENGTH = 96;

    private AriesFrameDescriptor()
    {
    }
}
