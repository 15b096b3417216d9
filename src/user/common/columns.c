// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The column table expanded: names, values and kinds of a row's columns. */
#include <string.h>
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

const char *const tt_dest_col_names[TT_DEST_COLS] = {
#define TT_DEST_COLUMN_NAME(id, name, flags, value, metric, labels) [TT_DEST_##id] = (name),
	TT_DEST_COLUMNS(TT_DEST_COLUMN_NAME)
#undef TT_DEST_COLUMN_NAME
};

static const unsigned int dest_col_flags[TT_DEST_COLS] = {
#define TT_DEST_COLUMN_FLAGS(id, name, flags, value, metric, labels) [TT_DEST_##id] = (flags),
	TT_DEST_COLUMNS(TT_DEST_COLUMN_FLAGS)
#undef TT_DEST_COLUMN_FLAGS
};

bool tt_dest_col_is_seconds(enum tt_dest_col col)
{
	return col < TT_DEST_COLS && (dest_col_flags[col] & TT_COL_SECONDS);
}

uint64_t tt_dest_column_value(const struct tt_dest_row *d, enum tt_dest_col col, double *seconds)
{
	*seconds = 0;
	switch (col) {
#define TT_DEST_COLUMN_VALUE(id, name, flags, value, metric, labels) \
	case TT_DEST_##id:                                          \
		if ((flags) & TT_COL_SECONDS) {                     \
			*seconds = (double)(value);                 \
			return 0;                                   \
		}                                                   \
		return (uint64_t)(value);
		TT_DEST_COLUMNS(TT_DEST_COLUMN_VALUE)
#undef TT_DEST_COLUMN_VALUE
	default:
		return 0;
	}
}

bool csv_dest_has(enum tt_csv_col col)
{
	for (size_t i = 0; col < TT_CSV_COLS && i < TT_DEST_COLS; i++)
		if (!strcmp(tt_dest_col_names[i], tt_csv_col_names[col]))
			return true;
	return false;
}
