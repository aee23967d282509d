package io.jfabric;

import io.jfabric.spi.MemoryRegistrationPolicy;
import io.jfabric.spi.Operation;
import io.jfabric.spi.ProviderCapabilities;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;

import static io.jfabric.ProviderCapabilitiesTest.errnoOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rules the runtime derives from a provider's description: the registry's key mode, the MR iov limit, the
 * order of the registration checks, authorization-key matching and the refused-operation answers.
 */
class ProviderRulesTest
{
    private static final long[] ONE_ADDRESS = { 0x1000 };
    private static final long[] ONE_LENGTH = { 64 };

    @Test
    void shouldForceOrClearProviderKeysByKeyModeAndKeepTheMrModeOtherwise()
    {
        final MemoryRegistrationPolicy byMode = MemoryRegistrationPolicy.DEFAULT;
        final MemoryRegistrationPolicy provider = MemoryRegistrationPolicy.builder()
            .keyMode(MemoryRegistrationPolicy.KeyMode.PROVIDER).build();
        final MemoryRegistrationPolicy requested = MemoryRegistrationPolicy.builder()
            .keyMode(MemoryRegistrationPolicy.KeyMode.REQUESTED).build();
        assertEquals(MrMode.BASIC, ProviderRules.registryMrMode(byMode, MrMode.BASIC));
        assertEquals(MrMode.VIRT_ADDR, ProviderRules.registryMrMode(byMode, MrMode.VIRT_ADDR));
        assertEquals(MrMode.VIRT_ADDR | MrMode.PROV_KEY, ProviderRules.registryMrMode(provider, MrMode.VIRT_ADDR));
        assertEquals(MrMode.PROV_KEY, ProviderRules.registryMrMode(provider, MrMode.SCALABLE));
        assertEquals(MrMode.VIRT_ADDR | MrMode.ALLOCATED, ProviderRules.registryMrMode(requested, MrMode.BASIC));
        assertEquals(MrMode.LOCAL, ProviderRules.registryMrMode(requested, MrMode.LOCAL | MrMode.PROV_KEY));
    }

    @Test
    void shouldTakeTheSmallestOfTheDomainsThePolicysAndTheAgentsIovLimits()
    {
        final Info info = Info.builder().domainAttr(DomainAttr.builder().mrIovLimit(16).build()).build();
        assertEquals(16, ProviderRules.mrIovLimit(MemoryRegistrationPolicy.DEFAULT, info));
        assertEquals(3, ProviderRules.mrIovLimit(MemoryRegistrationPolicy.builder().iovLimit(3).build(), info));
        final Info wide = Info.builder().domainAttr(DomainAttr.builder().mrIovLimit(1000).build()).build();
        assertEquals(ProviderRules.AGENT_MR_IOV_LIMIT,
            ProviderRules.mrIovLimit(MemoryRegistrationPolicy.DEFAULT, wide));
        final Info none = Info.builder().domainAttr(DomainAttr.builder().mrIovLimit(0).build()).build();
        assertEquals(1, ProviderRules.mrIovLimit(MemoryRegistrationPolicy.DEFAULT, none));
    }

    @Test
    void shouldCheckCountThenAlignmentThenAuthKeyThenTheValidator()
    {
        final int[] validated = new int[1];
        final ProviderCapabilities caps = ProviderCapabilities.builder()
            .memoryRegistration(MemoryRegistrationPolicy.builder()
                .alignment(256, EnumSet.of(MemoryRegistrationPolicy.Form.REGV))
                .validator((form, addresses, lengths, count, access, key, authKey) ->
                {
                    validated[0]++;
                    return 7 == key ? Errno.EKEYREJECTED.negated() : 0;
                })
                .build())
            .build();
        final long[] unaligned = { 0x1010, 0x2000 };
        final long[] lengths = { 16, 16 };
        final FabricException count = assertThrows(FabricException.class, () -> ProviderRules.checkRegistration(
            caps, 1, MemoryRegistrationPolicy.Form.REGV, unaligned, lengths, 2, 0, 1, null));
        assertEquals(Errno.EINVAL, count.errno());
        assertTrue(count.getMessage().contains("mr_iov_limit"), count.getMessage());
        final FabricException alignment = assertThrows(FabricException.class, () -> ProviderRules.checkRegistration(
            caps, 4, MemoryRegistrationPolicy.Form.REGV, unaligned, lengths, 2, 0, 1, new byte[1]));
        assertEquals(Errno.EINVAL, alignment.errno());
        assertTrue(alignment.getMessage().contains("256-byte aligned"), alignment.getMessage());
        assertEquals(Errno.EOPNOTSUPP, errnoOf(() -> ProviderRules.checkRegistration(caps, 4,
            MemoryRegistrationPolicy.Form.REGATTR, unaligned, lengths, 2, 0, 1, new byte[1])));
        assertEquals(0, validated[0]);
        assertEquals(Errno.EKEYREJECTED, errnoOf(() -> ProviderRules.checkRegistration(caps, 4,
            MemoryRegistrationPolicy.Form.REG, ONE_ADDRESS, ONE_LENGTH, 1, 0, 7, null)));
        ProviderRules.checkRegistration(caps, 4, MemoryRegistrationPolicy.Form.REGATTR, unaligned, lengths, 2, 0, 8,
            null);
        assertEquals(2, validated[0]);
    }

    @Test
    void shouldMatchAuthorizationKeysAgainstTheProvidersSize()
    {
        final ProviderCapabilities none = ProviderCapabilities.DEFAULT;
        final ProviderCapabilities four = ProviderCapabilities.builder().authKeySize(4).build();
        final Info domainKey = Info.builder().domainAttr(DomainAttr.builder().authKey(new byte[4]).build()).build();
        final Info epKey = Info.builder().epAttr(EpAttr.builder().authKey(new byte[5]).build()).build();
        assertNull(ProviderRules.authKeyMismatch(none, null));
        assertNull(ProviderRules.authKeyMismatch(none, Info.alloc()));
        assertTrue(ProviderRules.authKeyMismatch(none, domainKey).contains("domain_attr.auth_key"));
        assertNull(ProviderRules.authKeyMismatch(four, domainKey));
        assertTrue(ProviderRules.authKeyMismatch(four, epKey).contains("ep_attr.auth_key"));
        assertEquals(Errno.EOPNOTSUPP, errnoOf(() -> ProviderRules.checkAuthKey(none, new byte[1], "k")));
        assertEquals(Errno.EINVAL, errnoOf(() -> ProviderRules.checkAuthKey(four, new byte[5], "k")));
        ProviderRules.checkAuthKey(four, new byte[4], "k");
        ProviderRules.checkAuthKey(none, null, "k");
    }

    @Test
    void shouldAnswerRefusedOperationsWithTheChosenErrnoOnly()
    {
        final ProviderCapabilities caps = ProviderCapabilities.builder()
            .refuse(Operation.TINJECTDATA, Errno.ENOSYS)
            .refuse(Operation.COMPARE_ATOMICMSG, Errno.EOPNOTSUPP)
            .build();
        assertEquals(Errno.ENOSYS.negated(), caps.refusal(Operation.TINJECTDATA));
        assertEquals(Errno.EOPNOTSUPP.negated(), caps.refusal(Operation.COMPARE_ATOMICMSG));
        assertEquals(0, caps.refusal(Operation.TINJECT));
        assertEquals(Operation.TINJECTDATA.bit() | Operation.COMPARE_ATOMICMSG.bit(), caps.refusedOperations());
        assertTrue(Operation.values().length <= 64);
        assertEquals(Errno.EINVAL, errnoOf(() -> ProviderCapabilities.builder().refuse(Operation.SEND, Errno.EIO)));
        assertEquals(Errno.EINVAL, errnoOf(() -> MemoryRegistrationPolicy.builder().alignment(3)));
    }
}
