package io.jfabric.provider.gni;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.Optional;

/**
 * The conformance cases {@code gni} answers differently, each with its reason: fi_gni(7)'s limits (one-element
 * atomics, inject 64, RMA and MR iov 1, page-aligned scalable registrations), the lazy connect under manual
 * progress, duty-cycle counts of the generic protocol, and (marked NOT BUILT YET) what this first slice of the
 * provider lacks. Reported as disabled with the reason, never passed silently; every other case of every suite runs.
 */
final class GniDifferences implements ExecutionCondition
{
    private static final String ONE_ELEMENT = "fi_gni(7): one element per atomic (the AMO unit executes one; the " +
        "valid queries answer count 1), so a vector of several elements is EMSGSIZE";
    private static final String INJECT_64 = "fi_gni(7): inject_size is 64 (GNIX_INJECT_SIZE); the case injects or " +
        "copies more than 64 bytes at post (FI_INJECT in tx op_flags or a msg form), which is EMSGSIZE";
    private static final String RMA_IOV_1 = "fi_gni(7): rma_iov_limit is 1 (GNIX_MAX_RMA_IOV_LIMIT); the case " +
        "names several remote ranges";
    private static final String MR_IOV_1 = "fi_gni(7): mr_iov_limit is 1; the case registers two segments (regv)";
    private static final String PAGE_ALIGNED = "fi_gni(7): every registration in scalable mode (the suite's mode " +
        "over gni) starts on a 4 KiB page, else EINVAL (GNI.md 5.6-1); the case registers a region at an unaligned " +
        "offset of its buffer";
    private static final String MANUAL_CONNECT = "lazy VC connect (GNI.md 2.2): with FI_PROGRESS_MANUAL the " +
        "initiator's first operation to a peer needs the initiator's own progress calls until the peer's CONN_RESP " +
        "datagram is processed (upstream likewise); the case drives the initiator once, then only the target";
    private static final String NO_RENDEZVOUS_ARRIVAL = "NOT BUILT YET (slice 1): the operation-level SPI has no " +
        "rendezvous arrival, so gni pulls a rendezvous message whole into a receive-side staging buffer before the " +
        "runtime matches it; there is no pull into the matched buffer to observe or to break";
    private static final String MR_CLOSE_IN_FLIGHT = "NOT BUILT YET (slice 1): the target registers the range of an " +
        "RMA with its NIC for that operation; closing the memory region does not revoke that NIC registration, so " +
        "the FMA/BTE transfer in flight completes instead of failing";
    private static final String CONTEXTS_FILL_THE_DOMAIN = "GNIX_SEP_MAX_CNT (GNI.md 2.14): 128 transmit and 128 " +
        "receive contexts take 256 endpoint indices, the runtime's count per domain, and the pair's own endpoint " +
        "already holds one, so the maxima open in a fresh domain: GniScalableEndpointTest opens, routes and checks " +
        "them there (getInfo's grant and ENODATA above it, EINVAL above the maxima, likewise)";

    private static final Map<String, String> DIFFERENCES = Map.ofEntries(
        Map.entry("shouldMatchTheLocalExecutorForEverySupportedOpAndDatatype", ONE_ELEMENT),
        Map.entry("shouldReportAndEnforceTheContextLimits", CONTEXTS_FILL_THE_DOMAIN),
        Map.entry("shouldRunVectorAndMessageFormsOfEveryAtomicFamily", ONE_ELEMENT),
        Map.entry("shouldSumFetchAndSwapInt64AtTheTarget", ONE_ELEMENT),
        Map.entry("shouldRunAtomicsOverOperandCompareAndResultIovs", ONE_ELEMENT),
        Map.entry("shouldCopyAtPostAndCompleteWhenTxOpFlagsHoldInject", INJECT_64),
        Map.entry("shouldCopyAtPostAndCompleteRmaWritesAndAtomicsWhenTxOpFlagsHoldInject", INJECT_64),
        Map.entry("shouldCompleteMsgFormsPostedWithInject", INJECT_64),
        Map.entry("shouldReceive64kUnexpectedMessagesInReverseTagOrderInWindowsOf16", INJECT_64),
        Map.entry("shouldWriteAndReadSeveralRemoteRangesInOrder", RMA_IOV_1),
        Map.entry("shouldFailTheWholeOperationWhenOneRemoteRangeIsBad", RMA_IOV_1),
        Map.entry("shouldRegisterIovSegmentsAsOneRegionAndRefuseAccessAcrossSegments", MR_IOV_1),
        Map.entry("shouldRegisterByAttributesWithContextAndRefuseWhatIsNotSupported", MR_IOV_1),
        Map.entry("shouldFailALargeTransferWholeWhenAnyPartOfItsRangeIsBad", PAGE_ALIGNED),
        Map.entry("shouldCompleteBadRemoteAccessWithErrorAtInitiatorAndLeaveTargetUntouched", PAGE_ALIGNED),
        Map.entry("shouldCompleteDeliveryCompleteSendWhenTheTargetStopsProgressingAfterItsCompletion", MANUAL_CONNECT),
        Map.entry("shouldCompleteWritedataWhenTheTargetStopsProgressingAfterItsRemoteCompletion", MANUAL_CONNECT),
        Map.entry("shouldCompleteDeliveryCompleteSendWhenTheTargetClosesAfterItsCompletion", MANUAL_CONNECT),
        Map.entry("shouldRefuseToCancelAMultiRecvBufferWhileARendezvousPullCopiesIntoIt", NO_RENDEZVOUS_ARRIVAL),
        Map.entry("shouldFailTheReceiveOfARendezvousWhoseSenderClosesItsEndpointMidStream", NO_RENDEZVOUS_ARRIVAL),
        Map.entry("shouldFailAStreamedReadWhoseSourceRegionClosesMidStream", MR_CLOSE_IN_FLIGHT),
        Map.entry("shouldFailAStreamedWriteWhoseTargetRegionClosesMidStreamAndWriteNothingAfterTheClose",
            MR_CLOSE_IN_FLIGHT),
        Map.entry("shouldWritevAndReadvSeveralLocalBuffersAboveOneFrame", "NOT BUILT YET (slice 1): a read into " +
            "several local buffers needs every piece 4-byte aligned (GET alignment); unaligned pieces of a readv are " +
            "not split into head/middle/tail yet and fail with EINVAL"));

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(final ExtensionContext context)
    {
        final Optional<Method> method = context.getTestMethod();
        final String reason = method.map(m -> DIFFERENCES.get(m.getName())).orElse(null);
        return null == reason ? ConditionEvaluationResult.enabled("runs over gni") :
            ConditionEvaluationResult.disabled(reason);
    }
}
