package io.jfabric;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The index from every line of the getinfo section of CONFORMANCE.md to the tests that check it, kept honest: each
 * named test must exist and be a JUnit test, so that renaming or deleting one without updating the index fails.
 * runtime/DISCOVERY.md prints the same table.
 */
class GetInfoConformanceIndexTest
{
    /** CONFORMANCE.md getinfo line (its opening words) to {@code Class#method} of the tests that check it. */
    static final Map<String, List<String>> INDEX = index();

    private static Map<String, List<String>> index()
    {
        final Map<String, List<String>> m = new LinkedHashMap<>();
        m.put("No node, service or hints: every provider's default infos; src_addr set", List.of(
            "GetInfoTest#shouldReturnEveryProviderInfoWithSourceAddressWhenNoNodeServiceOrHints"));
        m.put("node and/or service with FI_SOURCE ... without FI_SOURCE: destination resolved, source filled", List.of(
            "GetInfoTest#shouldResolveSourceAddressFromNodeAndServiceWithFiSource",
            "GetInfoTest#shouldResolveSourceFromServiceOnlyWithFiSource",
            "GetInfoTest#shouldResolveDestinationAndFillSourceWithoutFiSource",
            "GetInfoTest#shouldResolveDestinationForEveryProviderThatCanExpressTheNode",
            "GetInfoAddressFamilyTest#shouldResolveTheNodeInTheFamilyTheFormatHolds",
            "GetInfoAddressFamilyTest#shouldIgnoreTheHintDestinationWhenANodeIsResolvedAsDestination",
            "GetInfoAddressFamilyTest#shouldIgnoreTheHintSourceWithFiSource",
            "ServiceNamesTest#shouldResolveAServiceNameIntoTheDestinationPort",
            "ServiceNamesTest#shouldResolveAServiceNameIntoTheSourcePortWithFiSource"));
        m.put("FI_NUMERICHOST: node must be a numeric address; a name is refused (ENODATA), no lookup made", List.of(
            "GetInfoTest#shouldRefuseHostNameWithNumericHostWithoutLookup",
            "GetInfoTest#shouldAcceptNumericAddressWithNumericHostWithoutLookup",
            "ServiceNamesTest#shouldLookUpTheServiceButNeverTheNodeWithNumericHost"));
        m.put("FI_PROV_ATTR_ONLY: exactly one info per provider, default values, provider name and version", List.of(
            "GetInfoTest#shouldReturnOneDefaultInfoPerProviderWithProvAttrOnly",
            "GetInfoTest#shouldListAProviderThatCannotRunHereWithProvAttrOnly",
            "GetInfoTest#shouldFilterProvAttrOnlyByProviderName"));
        m.put("A non-zero hint must be met or the provider drops out; zero hints are wildcards, except mode", List.of(
            "GetInfoTest#shouldTreatZeroedHintsAsWildcardsExceptMode",
            "GetInfoTest#shouldClearModeBitsTheProviderDoesNotNeed",
            "GetInfoTest#shouldReturnProviderModesWhenHintsAreNull",
            "GetInfoPropertiesTest#everyReturnedInfoSatisfiesItsHints",
            "GetInfoPropertiesTest#everyAcceptableProviderInfoIsReturnedInRankOrder"));
        m.put("ENODATA when: endpoint type, caps, mode, address format, names, threading, progress, maxima, " +
            "mr_mode, msg_order/comp_order", List.of(
            "GetInfoTest#shouldAnswerEnodataWhenHintCannotBeMet",
            "GetInfoTest#shouldDropOnlyTheProviderThatCannotMeetTheEndpointType",
            "GetInfoTest#shouldRankThreadingByParallelismAsLibfabric",
            "GetInfoTest#shouldAcceptManualProgressFromAnAutoProvider",
            "GetInfoTest#shouldAcceptTheMaximumAndRefuseOneMore",
            "GetInfoTest#shouldAcceptTheTagFormatAndRefuseOneMoreBit",
            "GetInfoTest#shouldAcceptLegacyBasicMrModeWhenItCoversTheProviderBits",
            "GetInfoTest#shouldRefuseBasicMrModeCombinedWithNewerBits",
            "GetInfoTest#shouldRefuseNewerMrModeBitsBeforeApi15AndAcceptThemFrom15",
            "GetInfoTest#shouldMatchFabricAndDomainNamesIgnoringCase",
            "GetInfoAddressFamilyTest#shouldAcceptAddressFormatsAsLibfabric",
            "GetInfoAddressFamilyTest#shouldRefuseAnIpv6HintAddressForAnIpv4ProviderNamingTheFamily",
            "GetInfoSharedContextTest#shouldAnswerEnodataNamingSharedContextWhenNoProviderSharesReceiveContexts",
            "GetInfoSharedContextTest#shouldStillRefuseAnOrdinaryContextCountAboveTheMaximum"));
        m.put("ENOSYS: requested API version newer than the library's. Version is (major, minor)", List.of(
            "GetInfoTest#shouldAnswerEnosysForNewerVersions",
            "GetInfoTest#shouldServeOlderVersionsAndReportTheRequestedApiVersion",
            "VersionTest#shouldPackAsFiVersion",
            "VersionTest#shouldOrderByMajorThenMinorNumerically"));
        m.put("Primary caps must be requested to be enabled; secondary caps may be reported when free; modifiers",
            List.of(
            "GetInfoTest#shouldEnableOnlyRequestedPrimaryCapsAndReportFreeSecondaryCaps",
            "GetInfoTest#shouldReportUnrequestedSourceOnlyWhenTheProviderCallsItFree",
            "GetInfoTest#shouldNeverReportPrimaryCapsOrCapsTheProviderLacksThroughItsFreeCaps",
            "GetInfoTest#shouldReportInprocSourceAndLocalCommunicationUnrequested",
            "GetInfoTest#shouldAssumeAllRelevantModifiersWhenNoneIsRequested",
            "GetInfoTest#shouldRestrictPrimaryCapWithModifier",
            "GetInfoTest#shouldEnableNoPrimaryCapWhenHintNamesOnlySecondaryCaps",
            "GetInfoTest#shouldReportEveryProviderCapWhenTheHintCapsAreZero",
            "GetInfoTest#shouldRefuseRequestedSecondaryCapTheProviderLacks"));
        m.put("Output attributes are >= the requested values; results ordered best-performing first", List.of(
            "GetInfoTest#shouldReturnOutputAttributesAtLeastTheRequestedValues",
            "GetInfoTest#shouldReturnRequestedQueueSizesWithinTheMaximum",
            "GetInfoTest#shouldAcceptSupportedOrdersAndReportAtLeastTheRequestedOnes",
            "GetInfoTest#shouldOrderResultsBestPerformingFirst",
            "GetInfoSharedContextTest#shouldMatchSharedTransmitContextOnlyAtAProviderThatSharesThem"));
        m.put("FI_ADDR_STR addresses: format://node:service/...?key=value, fi_shm://name, the gni form; " +
            "a string node with a non-null service is refused", List.of(
            "GetInfoTest#shouldResolveSockaddrAddressString",
            "GetInfoTest#shouldResolveAddressStringAsSourceWithFiSource",
            "GetInfoTest#shouldResolveProviderSpecificAddressStringOnlyAtThatProvider",
            "GetInfoTest#shouldResolveGniAddressStringIntoGniAddress",
            "GetInfoTest#shouldRefuseAddressStringNodeWithService",
            "GetInfoTest#shouldAnswerEnodataForAddressStringNoProviderUnderstands",
            "GetInfoAddressFamilyTest#shouldTakeTheFamilyOfAnAddressStringScheme",
            "ServiceNamesTest#shouldResolveAServiceNameInsideAnAddressString",
            "AddressStringTest#shouldParseSockaddrForm",
            "AddressStringTest#shouldParseProviderSpecificSchemeWithoutFormat",
            "AddressStringTest#shouldParseGniForm"));
        m.put("dupinfo is a deep copy; allocinfo gives a zeroed info with all sub-attributes present", List.of(
            "InfoTest#shouldDeepCopyEveryFieldWithDupinfo",
            "InfoTest#shouldAllocZeroedInfoWithEverySubAttributePresent"));
        m.put("The names of both man-page generations resolve", List.of(
            "FlagsTest#shouldResolveFlagNamesOfBothGenerationsAndKfabric",
            "FlagsTest#shouldResolveModeNamesOfBothGenerations",
            "FlagsTest#shouldResolveAddressFormatsAndEndpointTypesWithLibfabricValues"));
        return m;
    }

    @Test
    void shouldNameAnExistingTestForEveryGetinfoLineOfConformance()
    {
        final List<String> missing = new ArrayList<>();
        for (final Map.Entry<String, List<String>> line : INDEX.entrySet())
        {
            assertTrue(!line.getValue().isEmpty(), line.getKey());
            for (final String ref : line.getValue())
            {
                if (!isTest(ref))
                {
                    missing.add(ref);
                }
            }
        }

        assertEquals(List.of(), missing);
        assertEquals(12, INDEX.size());
    }

    private static boolean isTest(final String ref)
    {
        final int hash = ref.indexOf('#');
        try
        {
            final Class<?> type = Class.forName("io.jfabric." + ref.substring(0, hash));
            for (final Method m : type.getDeclaredMethods())
            {
                if (m.getName().equals(ref.substring(hash + 1)) && (m.isAnnotationPresent(Test.class) ||
                    m.isAnnotationPresent(ParameterizedTest.class) ||
                    m.isAnnotationPresent(net.jqwik.api.Property.class)))
                {
                    return true;
                }
            }
            return false;
        }
        catch (final ClassNotFoundException ex)
        {
            return false;
        }
    }
}
