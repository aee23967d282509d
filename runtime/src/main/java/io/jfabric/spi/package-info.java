/**
 * The provider SPI: what a transport implements to take part in {@code Fabric.getInfo} discovery
 * (and, as later issues add it, to open fabrics, domains and endpoints). Providers register through
 * {@code META-INF/services/io.jfabric.spi.Provider}.
 */
package io.jfabric.spi;
