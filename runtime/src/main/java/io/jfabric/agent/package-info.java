/**
 * Internal: the domain agent and the protocol engine, not an API. Nothing here is covered by compatibility; an
 * application uses {@code io.jfabric}, a provider {@code io.jfabric.spi}, and no provider imports this package
 * (a rule {@code ArchitectureRulesTest} checks, as it checks that a type here is public only when another runtime
 * package uses it). The jar's manifest lists the package under {@code Jfabric-Internal-Packages}.
 * <p>
 * One {@link io.jfabric.agent.DomainAgent} per domain runs the duty cycle; application threads reach it only
 * through the {@link io.jfabric.agent.CommandProxy} (commands), {@link io.jfabric.ring.CompletionRing} and
 * {@link io.jfabric.agent.CounterCell} (completions and counts) and the {@link io.jfabric.agent.PinTable}. The
 * agent's parts are package-private; runtime/ARCHITECTURE.md describes them.
 */
package io.jfabric.agent;
