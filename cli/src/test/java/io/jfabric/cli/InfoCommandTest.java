package io.jfabric.cli;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code jfabric info} run in-process, with the test-only provider {@code clitest} on the class path.
 * Assertions filter by that provider so that real providers registered later do not change them.
 */
class InfoCommandTest
{
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(final String... args)
    {
        return JfabricCommand.commandLine(new PrintWriter(out, true), new PrintWriter(err, true)).execute(args);
    }

    @Test
    void shouldPrintFiInfoShapedSummaryForTheProvider()
    {
        final int code = run("info", "-p", "clitest");

        assertEquals(0, code, err.toString());
        assertEquals(
            "provider: clitest\n" +
            "    fabric: clitest-fabric\n" +
            "    domain: clitest0\n" +
            "    version: 3.4\n" +
            "    type: FI_EP_RDM\n" +
            "    protocol: FI_PROTO_UDP\n" +
            "provider: clitest\n" +
            "    fabric: clitest-fabric\n" +
            "    domain: clitest0\n" +
            "    version: 3.4\n" +
            "    type: FI_EP_MSG\n" +
            "    protocol: FI_PROTO_UDP\n", out.toString());
        assertEquals("", err.toString());
    }

    @Test
    void shouldListProvidersWithVersions()
    {
        final int code = run("info", "-l");

        assertEquals(0, code);
        assertTrue(out.toString().contains("clitest:\n    version: 3.4\n"), out.toString());
    }

    @Test
    void shouldFilterByCapsInBothSpellingsAndPrintVerbose()
    {
        final int pipe = run("info", "-p", "clitest", "-c", "FI_TAGGED", "-v");
        final String verbose = out.toString();
        out.getBuffer().setLength(0);
        final int comma = run("info", "-p", "clitest", "-c", "msg,tagged", "-v");

        assertEquals(0, pipe);
        assertEquals(0, comma);
        assertTrue(verbose.contains("fi_info:\n    caps: [ FI_TAGGED, FI_RECV, FI_SEND ]\n"), verbose);
        assertTrue(verbose.contains("        type: FI_EP_RDM\n"), verbose);
        assertTrue(verbose.contains("        prov_name: clitest\n"), verbose);
        assertTrue(verbose.contains("        inject_size: 32\n"), verbose);
        assertFalse(verbose.contains("FI_EP_MSG"), verbose);
        assertTrue(out.toString().contains("caps: [ FI_MSG, FI_TAGGED, FI_RECV, FI_SEND ]"), out.toString());
    }

    @Test
    void shouldFilterByEndpointTypeAndModeAndDomain()
    {
        assertEquals(0, run("info", "-p", "clitest", "-e", "msg"));
        assertTrue(out.toString().contains("type: FI_EP_MSG") && !out.toString().contains("FI_EP_RDM"));
        out.getBuffer().setLength(0);

        // the MSG info needs FI_CONTEXT: with only FI_CONTEXT2 supported just the RDM info remains
        assertEquals(0, run("info", "-p", "clitest", "-m", "FI_CONTEXT2"));
        assertTrue(out.toString().contains("FI_EP_RDM") && !out.toString().contains("FI_EP_MSG"), out.toString());
        out.getBuffer().setLength(0);

        assertEquals(1, run("info", "-p", "clitest", "-d", "invalid_domain"));
    }

    @Test
    void shouldPrintTheDatagramInfosOfShmAndAeronWithMessageCapsOnly()
    {
        for (final String provider : new String[]{"shm", "aeron"})
        {
            out.getBuffer().setLength(0);
            assertEquals(0, run("info", "-p", provider, "-e", "dgram", "-v"));
            final String text = out.toString();
            assertTrue(text.contains("type: FI_EP_DGRAM") && !text.contains("FI_EP_RDM"), text);
            assertFalse(text.contains("FI_RMA") || text.contains("FI_ATOMIC") ||
                text.contains("FI_DELIVERY_COMPLETE"), text);
            assertTrue(text.contains("FI_PROGRESS_AUTO") && text.contains("FI_PROGRESS_MANUAL"), text);
            assertTrue(text.contains("shm".equals(provider) ? "max_msg_size: 8192\n" : "max_msg_size: 1312\n"), text);
        }
    }

    @Test
    void shouldExitOneWithEnodataTextWhenNothingMatches()
    {
        final int code = run("info", "-p", "nosuch");

        assertEquals(1, code);
        assertEquals("", out.toString());
        final String msg = err.toString();
        assertTrue(msg.startsWith("fi_getinfo: -61 (No data available)"), msg);
        assertEquals(1, msg.lines().count(), msg);
    }

    @Test
    void shouldExitTwoWithValidNamesForUnknownCapability()
    {
        final int code = run("info", "-c", "FI_WARP_DRIVE");

        assertEquals(2, code);
        final String msg = err.toString();
        assertEquals(1, msg.lines().count(), msg);
        assertTrue(msg.contains("FI_WARP_DRIVE") && msg.contains("FI_TAGGED") && msg.contains("FI_MSG"), msg);
        assertFalse(msg.contains("Exception"), msg);
    }

    @Test
    void shouldExitTwoWithValidNamesForUnknownModeTypeAndFormat()
    {
        assertEquals(2, run("info", "-m", "FI_NOPE"));
        assertEquals(2, run("info", "-e", "FI_EP_TELEPATHY"));
        assertEquals(2, run("info", "-a", "fi_pigeon"));

        final String[] lines = err.toString().split("\n");
        assertEquals(3, lines.length, err.toString());
        assertTrue(lines[0].contains("FI_CONTEXT2"), lines[0]);
        assertTrue(lines[1].contains("FI_EP_RDM"), lines[1]);
        assertTrue(lines[2].contains("FI_SOCKADDR_IN6"), lines[2]);
    }

    @Test
    void shouldExitTwoOnUnknownOptionWithoutStackTrace()
    {
        final int code = run("info", "--frobnicate");

        assertEquals(2, code);
        assertEquals(1, err.toString().lines().count(), err.toString());
        assertFalse(err.toString().contains("at picocli"), err.toString());
    }

    @Test
    void shouldPrintJson()
    {
        final int code = run("info", "-p", "clitest", "-e", "rdm", "--json");

        assertEquals(0, code);
        final java.util.List<?> infos = (java.util.List<?>) Json.parse(out.toString());
        assertEquals(1, infos.size(), out.toString());
        final java.util.Map<String, Object> info = Json.object(infos.get(0));
        assertEquals("clitest", Json.object(info.get("fabric_attr")).get("prov_name"));
        assertEquals("3.4", Json.object(info.get("fabric_attr")).get("prov_version"));
        assertEquals("FI_EP_RDM", Json.object(info.get("ep_attr")).get("type"));
        assertEquals(java.util.List.of("FI_MSG", "FI_TAGGED", "FI_RECV", "FI_SEND"), info.get("caps"));
        assertEquals(null, info.get("dest_addr"));
        assertTrue(info.containsKey("dest_addr"), "nulls are written");
        assertTrue(Json.number(Json.object(info.get("tx_attr")), "size") > 0, out.toString());
        assertTrue(out.toString().endsWith("]\n"), out.toString());
    }

    @Test
    void shouldListProvidersAsJson()
    {
        assertEquals(0, run("info", "-l", "--json"));
        final java.util.List<?> providers = (java.util.List<?>) Json.parse(out.toString());
        assertTrue(providers.contains(java.util.Map.of("name", "clitest", "version", "3.4")), out.toString());
    }

    @Test
    void shouldPrintVersion()
    {
        assertEquals(0, run("info", "--version"));
        assertTrue(out.toString().contains("ofi api: 1.22"), out.toString());
    }

    @Test
    void shouldResolveSourceAddressWithSourceFlagAndRefuseNamesWithNumericHost()
    {
        assertEquals(0, run("info", "-p", "clitest", "-e", "rdm", "-n", "127.0.0.1", "-s", "9", "--source", "-v"));
        assertTrue(out.toString().contains("src_addr: fi_sockaddr_in://127.0.0.1:9"), out.toString());

        assertEquals(1, run("info", "-p", "clitest", "-n", "some-host-name", "--numerichost"));
        assertTrue(err.toString().contains("FI_NUMERICHOST"), err.toString());
    }

    @Test
    void shouldResolveNodeAndServiceIntoDestinationAddress()
    {
        assertEquals(0, run("info", "-p", "clitest", "-e", "rdm", "-n", "127.0.0.1", "-s", "7471", "-v"));
        assertTrue(out.toString().contains("dest_addr: fi_sockaddr_in://127.0.0.1:7471"), out.toString());
    }

    @Test
    void shouldListOnlyTheNamedProviderWithListAndProvider()
    {
        assertEquals(0, run("info", "-l", "-p", "clitest"));
        assertEquals("clitest:\n    version: 3.4\n", out.toString());

        assertEquals(1, run("info", "-l", "-p", "nosuch"));
        assertTrue(err.toString().startsWith("fi_getinfo: -61"), err.toString());
    }

    @Test
    void shouldPrintOneDefaultInfoPerProviderWithProvAttrOnly()
    {
        assertEquals(0, run("info", "--prov-attr-only", "-p", "clitest"));
        assertEquals("provider: clitest\n    fabric: (null)\n    domain: (null)\n    version: 3.4\n", out.toString());
        out.getBuffer().setLength(0);

        assertEquals(0, run("info", "--prov_attr_only", "-p", "clitest", "-v"));
        assertEquals(1, out.toString().split("---\n", -1).length - 1, out.toString());
        assertTrue(out.toString().contains("        prov_name: clitest\n") &&
            out.toString().contains("        type: FI_EP_UNSPEC\n") && out.toString().contains("    caps: [  ]\n"),
            out.toString());
    }

    @Test
    void shouldRefuseProvAttrOnlyWithANodeOrWithList()
    {
        assertEquals(2, run("info", "--prov-attr-only", "-n", "127.0.0.1"));
        assertEquals(2, run("info", "--prov-attr-only", "-l"));

        final String[] lines = err.toString().split("\n");
        assertEquals(2, lines.length, err.toString());
        assertTrue(lines[0].contains("takes no node or service"), lines[0]);
        assertEquals("", out.toString());
    }

    @Test
    void shouldTakeFiInfoEndpointTypeAndPortSpellings()
    {
        assertEquals(0, run("info", "-p", "clitest", "-t", "FI_EP_MSG"));
        assertTrue(out.toString().contains("type: FI_EP_MSG") && !out.toString().contains("FI_EP_RDM"));
        out.getBuffer().setLength(0);

        assertEquals(0, run("info", "-p", "clitest", "-t", "rdm", "-n", "127.0.0.1", "-P", "7471", "-v"));
        assertTrue(out.toString().contains("dest_addr: fi_sockaddr_in://127.0.0.1:7471"), out.toString());
        out.getBuffer().setLength(0);

        assertEquals(0, run("info", "-p", "clitest", "-t", "rdm", "-n", "127.0.0.1", "--port", "7472", "-v"));
        assertTrue(out.toString().contains("dest_addr: fi_sockaddr_in://127.0.0.1:7472"), out.toString());
    }

    @Test
    void shouldResolveSrcAddrAsTheSourceNodeAndRefuseItWithNode()
    {
        assertEquals(0, run("info", "-p", "clitest", "-e", "rdm", "--src_addr", "127.0.0.1", "-P", "9", "-v"));
        assertTrue(out.toString().contains("src_addr: fi_sockaddr_in://127.0.0.1:9") &&
            out.toString().contains("dest_addr: (null)"), out.toString());

        assertEquals(2, run("info", "--src_addr", "127.0.0.1", "-n", "127.0.0.2"));
        assertEquals(1, err.toString().lines().count(), err.toString());
        assertTrue(err.toString().contains("--src_addr"), err.toString());
    }

    @Test
    void shouldPrintOnlyTheInfosContainingTheTextGivenToInfo()
    {
        assertEquals(0, run("info", "-p", "clitest", "-i", "fi_ep_msg"));

        final String text = out.toString();
        assertEquals(1, text.split("---\n", -1).length - 1, text);
        assertTrue(text.contains("        type: FI_EP_MSG\n") && !text.contains("FI_EP_RDM"), text);
        assertTrue(text.contains("fi_info:\n    caps: "), text);
    }

    @Test
    void shouldExitOneWhenNoInfoContainsTheText()
    {
        assertEquals(1, run("info", "-p", "clitest", "-i", "no-info-says-this"));

        assertEquals("", out.toString());
        assertEquals(1, err.toString().lines().count(), err.toString());
        assertTrue(err.toString().contains("no-info-says-this"), err.toString());
    }

    @Test
    void shouldListEverySettingWithItsVariablePropertyAndDefault()
    {
        assertEquals(0, run("info", "--env"));

        final String text = out.toString();
        for (final io.jfabric.Configuration.Setting setting : io.jfabric.Configuration.settings())
        {
            assertTrue(text.contains("# " + setting.environmentVariable() + ": " + setting.type() + "\n# " +
                setting.description() + "\n# -D" + setting.property() + ", default: " + setting.defaultValue() + "\n"),
                text);
        }
        assertTrue(text.contains("# JFABRIC_SHM_RING_CAPACITY: bytes\n"), text);
        assertTrue(text.contains("# JFABRIC_JAVA_OPTS: string\n"), text);
        assertEquals(io.jfabric.Configuration.settings().size() + 1, text.split("\n\n").length, text);
        assertEquals("", err.toString());
    }

    @Test
    void shouldListOnlyTheSettingsWhoseNameContainsTheGetenvText()
    {
        assertEquals(0, run("info", "-g", "shm"));

        final String text = out.toString();
        // dir, ring capacity, pool size (jfabric.shm.checkedUpdates is gone with the CAS it guarded)
        assertEquals(3, text.split("\n\n").length, text);
        assertTrue(text.startsWith("# JFABRIC_SHM_DIR: path\n"), text);
        assertEquals(1, run("info", "--getenv", "nosuch"));
        assertEquals("jfabric info: no setting's name contains 'nosuch'\n", err.toString());
    }

    @Test
    void shouldShowTheValueSetAsASystemProperty()
    {
        System.setProperty("jfabric.flow.credits", "99");
        try
        {
            assertEquals(0, run("info", "-g", "FLOW_CREDITS"));
        }
        finally
        {
            System.clearProperty("jfabric.flow.credits");
        }
        assertTrue(out.toString().endsWith("# -Djfabric.flow.credits, default: 65536\n# set: 99\n"), out.toString());
    }

    @Test
    void shouldExitOneNamingAServiceNameThatCannotBeResolved()
    {
        assertEquals(1, run("info", "-p", "clitest", "-n", "127.0.0.1", "-s", "no-such-service-name"));

        assertEquals(1, err.toString().lines().count(), err.toString());
        assertTrue(err.toString().contains("'no-such-service-name'"), err.toString());
    }

    @Test
    void shouldReportOnlyRequestedPrimaryCapsAndTheFreeSecondaryOnes()
    {
        // clitest has no secondary caps: a request for FI_MSG gives FI_MSG and its directions, nothing else
        assertEquals(0, run("info", "-p", "clitest", "-e", "rdm", "-c", "FI_MSG", "-v"));

        assertTrue(out.toString().contains("fi_info:\n    caps: [ FI_MSG, FI_RECV, FI_SEND ]\n"), out.toString());
    }
}
