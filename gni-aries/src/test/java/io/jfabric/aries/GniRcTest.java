package io.jfabric.aries;

import io.jfabric.Errno;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class GniRcTest
{
    @Test
    void shouldMapStatusCodesAsTheProviderDoes()
    {
        assertEquals(Errno.SUCCESS, GniRc.toErrno(GniRc.SUCCESS));
        assertEquals(Errno.EAGAIN, GniRc.toErrno(GniRc.NOT_DONE));
        assertEquals(Errno.EINVAL, GniRc.toErrno(GniRc.INVALID_PARAM));
        assertEquals(Errno.EBUSY, GniRc.toErrno(GniRc.ERROR_RESOURCE));
        assertEquals(Errno.ETIMEDOUT, GniRc.toErrno(GniRc.TIMEOUT));
        assertEquals(Errno.EACCES, GniRc.toErrno(GniRc.PERMISSION_ERROR));
        assertEquals(Errno.EOTHER, GniRc.toErrno(GniRc.DESCRIPTOR_ERROR));
        assertEquals(Errno.EINVAL, GniRc.toErrno(GniRc.ALIGNMENT_ERROR));
        assertEquals(Errno.EOPBADSTATE, GniRc.toErrno(GniRc.INVALID_STATE));
        assertEquals(Errno.EINVAL, GniRc.toErrno(GniRc.NO_MATCH));
        assertEquals(Errno.ETOOSMALL, GniRc.toErrno(GniRc.SIZE_ERROR));
        assertEquals(Errno.ECANCELED, GniRc.toErrno(GniRc.TRANSACTION_ERROR));
        assertEquals(Errno.EOPNOTSUPP, GniRc.toErrno(GniRc.ILLEGAL_OP));
        assertEquals(Errno.ENOMEM, GniRc.toErrno(GniRc.ERROR_NOMEM));
        assertEquals(Errno.EOTHER, GniRc.toErrno(99));
        assertEquals("GNI_RC_ALIGNMENT_ERROR", GniRc.name(GniRc.ALIGNMENT_ERROR));
        assertEquals("GNI_RC_99", GniRc.name(99));
    }

    @Test
    void shouldEncodeAndDecodeCqEntries()
    {
        final long entry = GniCqEntry.encode(GniCqEntry.TYPE_SMSG, 0x1AB_CDEF, 0x1_2345_6789L, true, true, true);
        assertEquals(GniCqEntry.TYPE_SMSG, GniCqEntry.type(entry));
        assertEquals(0xAB_CDEF, GniCqEntry.instId(entry));
        assertEquals(0x2345_6789L, GniCqEntry.msgId(entry));
        assertEquals(true, GniCqEntry.remote(entry));
        assertEquals(true, GniCqEntry.error(entry));
        assertEquals(true, GniCqEntry.recoverable(entry));
        final long ok = GniCqEntry.encode(GniCqEntry.TYPE_POST, 5, 6, false, false, true);
        assertEquals(false, GniCqEntry.error(ok));
        assertEquals(false, GniCqEntry.recoverable(ok));
        assertEquals(GniCqEntry.TYPE_POST, GniCqEntry.type(ok));
    }
}
