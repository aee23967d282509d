package com.example;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Runs the program in the test JVM (surefire's argLine carries the flag Agrona needs).
 */
class FirstProgramTest
{
    @Test
    @Timeout(60)
    void shouldPrintTheMessageThatTheEndpointSentToItself()
    {
        final PrintStream stdout = System.out;
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try
        {
            FirstProgram.main(new String[0]);
        }
        finally
        {
            System.setOut(stdout);
        }
        assertEquals("hello, fabric", captured.toString(StandardCharsets.UTF_8).strip());
    }
}
