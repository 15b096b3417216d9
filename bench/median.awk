# The median of the numbers in a space-separated list ("" for none): an
# insertion sort, the lists being a value per round. Put before the
# program of each awk that needs it, as "$MEDIAN_AWK".
function median(list,    a, n, i, j, x) {
	n = split(list, a, " ")
	for (i = 2; i <= n; i++) {
		x = a[i] + 0
		for (j = i - 1; j >= 1 && a[j] + 0 > x; j--) a[j + 1] = a[j]
		a[j + 1] = x
	}
	if (n == 0) return ""
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
