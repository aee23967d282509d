/**
 * The emulated Cray Aries NIC: a uGNI-shaped API ({@link io.jfabric.aries.Cdm}, {@link io.jfabric.aries.GniNic},
 * {@link io.jfabric.aries.GniCq}, {@link io.jfabric.aries.GniEp}, {@link io.jfabric.aries.GniRc} status codes) over
 * a per-process NIC engine ({@link io.jfabric.aries.AriesNode}) that moves frames on an
 * {@link io.jfabric.aries.AriesWire} (in-JVM or the shm provider's transport) and answers remote accesses on its
 * own, with target-side protection, a seeded {@link io.jfabric.aries.FaultPlan}, read-only
 * {@link io.jfabric.aries.AriesStats} and an optional {@link io.jfabric.aries.TimingModel}. What is modelled and
 * what is not: {@code gni-aries/ARIES.md}.
 */
package io.jfabric.aries;
