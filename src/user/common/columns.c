// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The column table expanded: names, values and kinds of a row's columns. */
#include "common/columns.h"

const char *const tt_csv_col_names[TT_CSV_COLS] = {
#define TT_COLUMN_NAME(id, name, flags, value, metric, labels) [TT_CSV_##id] = (name),
	TT_COLUMNS(TT_COLUMN_NAME)
#undef TT_COLUMN_NAME
};

static const unsigned int col_flags[TT_CSV_COLS] = {
#define TT_COLUMN_FLAGS(id, name, flags, value, metric, labels) [TT_CSV_##id] = (flags),
	TT_COLUMNS(TT_COLUMN_FLAGS)
#undef TT_COLUMN_FLAGS
};

uint64_t tt_column_value(const struct tt_row *r, enum tt_csv_col col)
{
	switch (col) {
#define TT_COLUMN_VALUE(id, name, flags, value, metric, labels) \
	case TT_CSV_##id:                        \
		return value;
		TT_COLUMNS(TT_COLUMN_VALUE)
#undef TT_COLUMN_VALUE
	default:
		return 0;
	}
}

static const char *const col_metrics[TT_CSV_COLS][2] = {
#define TT_COLUMN_METRIC(id, name, flags, value, metric, labels) [TT_CSV_##id] = { (metric), (labels) },
	TT_COLUMNS(TT_COLUMN_METRIC)
#undef TT_COLUMN_METRIC
};

const char *tt_column_metric(enum tt_csv_col col)
{
	return col < TT_CSV_COLS ? col_metrics[col][0] : "";
}

const char *tt_column_labels(enum tt_csv_col col)
{
	return col < TT_CSV_COLS ? col_metrics[col][1] : "";
}

static bool has_flag(enum tt_csv_col col, unsigned int flag)
{
	return col < TT_CSV_COLS && (col_flags[col] & flag);
}

bool csv_col_is_level(enum tt_csv_col col)
{
	return has_flag(col, TT_COL_LEVEL);
}

bool csv_col_optional(enum tt_csv_col col)
{
	return has_flag(col, TT_COL_LATER);
}

bool csv_dest_has(enum tt_csv_col col)
{
	return has_flag(col, TT_COL_DEST);
}
