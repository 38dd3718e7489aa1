// gemm.c: the peer of benchtable's matmul rows, OpenBLAS cblas_sgemm and
// cblas_dgemm on n×n·n×n for n = 128, 512, 1024, printed as benchtable prints
// them (workload, ms/op, GFLOP/s). Each row times repeated calls for about a
// second after one warm-up call. Built and run by gemm.sh.
//
//	cc -O2 -o gemm gemm.c -lopenblas && ./gemm [threads]
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void openblas_set_num_threads(int);
char *openblas_get_corename(void);

static double now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// fill sets x[0..n) to uniform values in [-1, 1) from a fixed LCG.
static void fill(double *x, long n, unsigned long long *s) {
	for (long i = 0; i < n; i++) {
		*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
		x[i] = (double)(*s >> 11) / 9007199254740992.0 * 2 - 1;
	}
}

// row times op until a second has passed and prints the row.
static void row(const char *dtype, int n, void (*op)(int, void *, void *, void *), void *a, void *b, void *c) {
	op(n, a, b, c);
	long calls = 0;
	double t0 = now(), t;
	do {
		op(n, a, b, c);
		calls++;
		t = now() - t0;
	} while (t < 1.0);
	double per = t / calls;
	char name[64];
	snprintf(name, sizeof name, "matmul/%s/%d", dtype, n);
	printf("%-34s %10.3f %9.2f\n", name, per * 1e3, 2.0 * n * n * n / per / 1e9);
	fflush(stdout);
}

static void sgemm(int n, void *a, void *b, void *c) {
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1, a, n, b, n, 0, c, n);
}

static void dgemm(int n, void *a, void *b, void *c) {
	cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1, a, n, b, n, 0, c, n);
}

int main(int argc, char **argv) {
	int threads = argc > 1 ? atoi(argv[1]) : 2;
	openblas_set_num_threads(threads);
	printf("%s, %s kernels, %d threads\n", OPENBLAS_VERSION, openblas_get_corename(), threads);
	printf("%-34s %10s %9s\n", "workload", "ms/op", "GFLOP/s");
	unsigned long long seed = 1;
	int sizes[] = {128, 512, 1024};
	for (int s = 0; s < 3; s++) {
		int n = sizes[s];
		long nn = (long)n * n;
		double *a = malloc(nn * sizeof(double)), *b = malloc(nn * sizeof(double)), *c = malloc(nn * sizeof(double));
		float *af = malloc(nn * sizeof(float)), *bf = malloc(nn * sizeof(float)), *cf = malloc(nn * sizeof(float));
		fill(a, nn, &seed);
		fill(b, nn, &seed);
		for (long i = 0; i < nn; i++) {
			af[i] = a[i];
			bf[i] = b[i];
		}
		row("float32", n, sgemm, af, bf, cf);
		row("float64", n, dgemm, a, b, c);
		free(a), free(b), free(c), free(af), free(bf), free(cf);
	}
	return 0;
}
