package io.jfabric;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Resolves the {@code service} of getInfo into a port for the socket address formats, as {@code getaddrinfo}
 * does: a number {@code 0..65535} is the port; a name (or alias) is looked up in the services database, the
 * {@code /etc/services} file ({@code name port/protocol [aliases...] [# comment]}), any protocol, first entry
 * wins. When the file is absent only numeric services work, and a name is refused with a message saying so.
 * <p>
 * The file is read on every lookup of a name (control path only, and a changed file is seen at once). Immutable
 * and thread-safe.
 */
final class ServiceNames
{
    /** The system's services database. */
    static final Path SYSTEM_FILE = Path.of("/etc/services");

    private final Path file;

    /**
     * Service names from a services file.
     *
     * @param file the file in {@code /etc/services} format.
     */
    ServiceNames(final Path file)
    {
        this.file = file;
    }

    /**
     * Service names from {@link #SYSTEM_FILE}.
     *
     * @return the lookup.
     */
    static ServiceNames system()
    {
        return new ServiceNames(SYSTEM_FILE);
    }

    /**
     * The port of a service.
     *
     * @param service the service: null or empty for port 0, a port number, or a service name.
     * @return the port.
     * @throws FabricException ENODATA naming the service when it is a number out of range, a name the file does
     *                         not list, or a name while the file is absent or unreadable.
     */
    int port(final String service)
    {
        if (service == null || service.isEmpty())
        {
            return 0;
        }
        if (service.chars().allMatch(c -> c >= '0' && c <= '9'))
        {
            // digits only: a port number, never a name (as getaddrinfo)
            if (service.length() <= 5)
            {
                final int p = Integer.parseInt(service);
                if (p <= 0xFFFF)
                {
                    return p;
                }
            }
            throw new FabricException(Errno.ENODATA, "service '" + service + "' is not a port number 0..65535");
        }
        final int found;
        try
        {
            found = lookup(service);
        }
        catch (final NoSuchFileException ex)
        {
            throw new FabricException(Errno.ENODATA, "service '" + service + "' is a name but " + file +
                " is absent: only numeric services work");
        }
        catch (final IOException ex)
        {
            throw new FabricException(Errno.ENODATA, "service '" + service + "' is a name but " + file +
                " cannot be read (" + ex.getMessage() + "): only numeric services work");
        }
        if (found < 0)
        {
            throw new FabricException(Errno.ENODATA, "service '" + service + "' is neither a port number nor a " +
                "service name in " + file);
        }
        return found;
    }

    private int lookup(final String name) throws IOException
    {
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.ISO_8859_1))
        {
            String line;
            while ((line = in.readLine()) != null)
            {
                final int hash = line.indexOf('#');
                final String[] fields = (hash >= 0 ? line.substring(0, hash) : line).trim().split("\\s+");
                if (fields.length < 2 || !listsName(fields, name))
                {
                    continue;
                }
                final int slash = fields[1].indexOf('/');
                final String port = slash >= 0 ? fields[1].substring(0, slash) : fields[1];
                if (!port.isEmpty() && port.length() <= 5 && port.chars().allMatch(c -> c >= '0' && c <= '9'))
                {
                    final int p = Integer.parseInt(port);
                    if (p <= 0xFFFF)
                    {
                        return p;
                    }
                }
                // a malformed entry names no port: keep looking, as the C library skips it
            }
        }
        return -1;
    }

    private static boolean listsName(final String[] fields, final String name)
    {
        // field 0 is the official name, fields 2.. the aliases; names are case-sensitive (getservbyname)
        if (fields[0].equals(name))
        {
            return true;
        }
        for (int i = 2; i < fields.length; i++)
        {
            if (fields[i].equals(name))
            {
                return true;
            }
        }
        return false;
    }
}
