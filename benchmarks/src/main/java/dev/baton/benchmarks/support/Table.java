package dev.baton.benchmarks.support;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A Markdown results table: one row per implementation, one column per figure, ready to paste
 * into {@code docs/benchmarks.md}.
 */
public final class Table {

	private final String title;

	private final List<String> columns;

	private final List<List<String>> rows = new ArrayList<>();

	public Table(String title, List<String> columns) {
		this.title = title;
		this.columns = columns;
	}

	/**
	 * Adds a row with the figures of the given columns, formatted compactly.
	 * @param implementation the first cell
	 * @param metrics the figures, looked up by column name
	 * @param note a last free-text cell
	 */
	public void add(String implementation, Metrics metrics, String note) {
		List<String> row = new ArrayList<>();
		row.add(implementation);
		for (String column : this.columns) {
			row.add(metrics.has(column) ? format(metrics.get(column)) : "n/a");
		}
		row.add(note);
		this.rows.add(row);
	}

	/**
	 * Adds a row of cells formatted by the caller, one per column.
	 * @param implementation the first cell
	 * @param cells the figures, in the order of the columns
	 * @param note a last free-text cell
	 */
	public void add(String implementation, List<String> cells, String note) {
		if (cells.size() != this.columns.size()) {
			throw new IllegalArgumentException(cells.size() + " cells for " + this.columns.size() + " columns");
		}
		List<String> row = new ArrayList<>();
		row.add(implementation);
		row.addAll(cells);
		row.add(note);
		this.rows.add(row);
	}

	/**
	 * Returns one column's cells, or the notes with {@code "notes"}.
	 * @param column a column name
	 * @return the cells, one per row
	 */
	public List<String> column(String column) {
		int index = column.equals("notes") ? this.columns.size() + 1 : this.columns.indexOf(column) + 1;
		if (index == 0) {
			throw new IllegalArgumentException("No column " + column + " in " + this.title);
		}
		return this.rows.stream().map((row) -> row.get(index)).toList();
	}

	public String title() {
		return this.title;
	}

	public boolean isEmpty() {
		return this.rows.isEmpty();
	}

	public String toMarkdown() {
		StringBuilder text = new StringBuilder("#### ").append(this.title).append("\n\n");
		List<String> header = new ArrayList<>();
		header.add("implementation");
		header.addAll(this.columns);
		header.add("notes");
		line(text, header);
		line(text, header.stream().map((cell) -> "---").toList());
		this.rows.forEach((row) -> line(text, row));
		return text.toString();
	}

	private static void line(StringBuilder text, List<String> cells) {
		text.append("| ").append(String.join(" | ", cells)).append(" |\n");
	}

	/**
	 * Formats a figure with three significant digits, thousands as {@code k}: {@code 12.1k},
	 * {@code 0.54}, {@code 37}.
	 * @param value the figure
	 * @return its text
	 */
	public static String format(double value) {
		if (Double.isNaN(value)) {
			return "n/a";
		}
		double magnitude = Math.abs(value);
		if (magnitude >= 10_000) {
			return String.format(Locale.ROOT, "%.1fk", value / 1000);
		}
		if (magnitude >= 1000) {
			return String.format(Locale.ROOT, "%.2fk", value / 1000);
		}
		if (magnitude >= 100 || value == Math.rint(value)) {
			return String.format(Locale.ROOT, "%.0f", value);
		}
		if (magnitude >= 10) {
			return String.format(Locale.ROOT, "%.1f", value);
		}
		return String.format(Locale.ROOT, "%.2f", value);
	}

}
