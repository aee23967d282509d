package io.jfabric.cli;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.awt.Color;
import java.awt.image.BufferedImage;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import javax.imageio.ImageIO;

/**
 * The percentile plot of {@code jfabric bench}: one line per series (provider or peer, size, rate), drawn the way
 * HdrHistogram's plotter draws {@code .hgrm} files: the x axis is {@code 1/(1-percentile)} on a log scale (drawn
 * as {@code log10(1/(1-percentile))} on a linear axis, so 1 = 90 %, 2 = 99 %, 3 = 99.9 %), the y axis the round
 * trip in microseconds (log scale, so that a microsecond median and a millisecond tail both read). Rendered with
 * XChart into a PNG, headless.
 * <p>
 * Control path; not thread-safe.
 */
final class BenchPlot
{
    /** Default width in pixels. */
    static final int DEFAULT_WIDTH = 1000;
    /** Default height in pixels. */
    static final int DEFAULT_HEIGHT = 600;
    private static final int TICKS_PER_HALF_DISTANCE = 5;
    private static final String X_TITLE =
        "percentile, log scale: 0 = 0%, 1 = 90%, 2 = 99%, 3 = 99.9%, 4 = 99.99%, 5 = 99.999%, 6 = 99.9999%";

    private BenchPlot()
    {
    }

    /**
     * Draw and write the plot.
     *
     * @param file   the PNG to write.
     * @param title  the chart's title.
     * @param series the series with a histogram, in legend order.
     * @param width  pixels.
     * @param height pixels.
     * @throws IOException when the file cannot be written.
     */
    static void write(final File file, final String title, final List<BenchSeries> series, final int width,
        final int height) throws IOException
    {
        System.setProperty("java.awt.headless", "true");
        final XYChart chart = new XYChartBuilder().width(width).height(height).title(title)
            .xAxisTitle(X_TITLE).yAxisTitle("round trip (µs)").build();
        // x is log10(1/(1-p)) on a linear axis, its decades named in the axis title: XChart's tick-label callback
        // loops for minutes on these ranges (3.8.8), so the labels stay numeric
        chart.getStyler().setYAxisLogarithmic(true).setYAxisLogarithmicDecadeOnly(true)
            .setYAxisDecimalPattern("#,##0.###")
            .setXAxisDecimalPattern("0.#")
            .setXAxisMin(0.0)
            .setLegendPosition(Styler.LegendPosition.InsideSE)
            .setChartBackgroundColor(Color.WHITE)
            .setAntiAlias(true);
        for (final BenchSeries s : series)
        {
            if (!s.hasHistogram())
            {
                continue;
            }
            final double[][] points = points(s.histogram);
            final XYSeries line = chart.addSeries(s.title(), points[0], points[1]);
            line.setMarker(SeriesMarkers.NONE);
        }
        final BufferedImage image = BitmapEncoder.getBufferedImage(chart);
        if (!ImageIO.write(image, "png", file))
        {
            throw new IOException("no PNG writer");
        }
    }

    /**
     * The plotter's points: {@code x = 1/(1-p)} for each percentile step below 100 %, then the maximum at
     * {@code x = count} (the last value of {@code count} is at percentile {@code 1 - 1/count}); {@code y} in µs.
     */
    static double[][] points(final Histogram histogram)
    {
        final List<double[]> points = new ArrayList<>();
        for (final HistogramIterationValue v : histogram.percentiles(TICKS_PER_HALF_DISTANCE))
        {
            final double p = v.getPercentileLevelIteratedTo() / 100.0;
            if (p >= 1.0)
            {
                break;
            }
            points.add(new double[] { 1.0 / (1.0 - p), Math.max(0.001, v.getValueIteratedTo() / 1000.0) });
        }
        final double lastX = points.isEmpty() ? 1.0 : points.get(points.size() - 1)[0];
        points.add(new double[] { Math.max(lastX, histogram.getTotalCount()),
            Math.max(0.001, histogram.getMaxValue() / 1000.0) });
        final double[][] xy = new double[2][points.size()];
        for (int i = 0; i < points.size(); i++)
        {
            xy[0][i] = Math.log10(points.get(i)[0]);
            xy[1][i] = points.get(i)[1];
        }
        return xy;
    }
}
