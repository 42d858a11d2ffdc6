/* SPDX-License-Identifier: MIT */
/*
 * The C library functions docs/PORTING.md says a kernel provides to
 * librkbare_kernel.a and librkbare_npu_model.a — these and no others: the
 * kernel links with -nostdlib, so anything missing here is a link error.
 * A kernel with a libc of its own would take them from there; this one
 * writes them out to show how little is asked.
 *
 * Built with -fno-tree-loop-distribute-patterns, so that GCC does not turn
 * the loops below back into calls to the functions they implement.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel.h"

/* ---- memory: first fit over an address-ordered free list ---- */

/* Every block, free or handed out, starts with this header; sizes include
 * it and are multiples of ALLOC_ALIGN, which is also malloc's alignment
 * (aarch64's max_align_t). */
struct block {
	size_t size;
	struct block *next;	/* free blocks only */
};

#define ALLOC_ALIGN	16u
#define HEADER		((sizeof(struct block) + ALLOC_ALIGN - 1) & ~(size_t)(ALLOC_ALIGN - 1))
#define MIN_BLOCK	(HEADER + ALLOC_ALIGN)

static struct block *free_list;
static bool heap_ready;

static void heap_init(void)
{
	free_list = (struct block *)__heap_start;
	free_list->size = ((uintptr_t)__heap_end - (uintptr_t)__heap_start) &
			 ~(size_t)(ALLOC_ALIGN - 1);
	free_list->next = NULL;
	heap_ready = true;
}

void *malloc(size_t size)
{
	struct block **link, *b;
	size_t need;

	if (!heap_ready)
		heap_init();
	/* malloc(0) returns a block of its own: callers size arrays by counts. */
	if (size > SIZE_MAX - HEADER - ALLOC_ALIGN)
		return NULL;
	need = HEADER + ((size + ALLOC_ALIGN - 1) & ~(size_t)(ALLOC_ALIGN - 1));
	if (need < MIN_BLOCK)
		need = MIN_BLOCK;
	for (link = &free_list; (b = *link); link = &b->next) {
		if (b->size < need)
			continue;
		if (b->size - need >= MIN_BLOCK) {	/* split: the tail stays free */
			struct block *rest = (struct block *)((char *)b + need);

			rest->size = b->size - need;
			rest->next = b->next;
			*link = rest;
			b->size = need;
		} else {
			*link = b->next;
		}
		return (char *)b + HEADER;
	}
	return NULL;
}

void free(void *p)
{
	struct block *b, *prev = NULL, *next;

	if (!p)
		return;
	b = (struct block *)((char *)p - HEADER);
	for (next = free_list; next && next < b; next = next->next)
		prev = next;
	/* Insert in address order, merging with the neighbours it touches. */
	if (next && (char *)b + b->size == (char *)next) {
		b->size += next->size;
		next = next->next;
	}
	b->next = next;
	if (prev && (char *)prev + prev->size == (char *)b) {
		prev->size += b->size;
		prev->next = b->next;
	} else if (prev) {
		prev->next = b;
	} else {
		free_list = b;
	}
}

void *calloc(size_t n, size_t size)
{
	void *p;

	if (size && n > SIZE_MAX / size)
		return NULL;
	p = malloc(n * size);
	if (p)
		memset(p, 0, n * size);
	return p;
}

/* ---- strings ---- */

void *memcpy(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	/* Word copies when both are aligned: the library copies model
	 * constants and tensors, the NPU model whole feature maps. */
	if (!(((uintptr_t)d | (uintptr_t)s) & 7))
		for (; n >= 8; n -= 8, d += 8, s += 8)
			*(uint64_t *)(void *)d = *(const uint64_t *)(const void *)s;
	while (n--)
		*d++ = *s++;
	return dst;
}

void *memmove(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (d <= s || d >= s + n)
		return memcpy(dst, src, n);
	while (n--)
		d[n] = s[n];
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;

	if (!((uintptr_t)d & 7)) {
		uint64_t w = 0x0101010101010101ull * (unsigned char)c;

		for (; n >= 8; n -= 8, d += 8)
			*(uint64_t *)(void *)d = w;
	}
	while (n--)
		*d++ = (unsigned char)c;
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

void *memchr(const void *p, int c, size_t n);
void *memchr(const void *p, int c, size_t n)
{
	const unsigned char *s = p;

	for (; n; n--, s++)
		if (*s == (unsigned char)c)
			return (void *)(uintptr_t)s;
	return NULL;
}

size_t strlen(const char *s)
{
	const char *e = s;

	while (*e)
		e++;
	return (size_t)(e - s);
}

int strncmp(const char *a, const char *b, size_t n);
int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++)
		if (*a != *b || !*a)
			return (unsigned char)*a - (unsigned char)*b;
	return 0;
}

int strcmp(const char *a, const char *b);
int strcmp(const char *a, const char *b)
{
	return strncmp(a, b, SIZE_MAX);
}

char *strncpy(char *dst, const char *src, size_t n);
char *strncpy(char *dst, const char *src, size_t n)
{
	size_t i = 0;

	for (; i < n && src[i]; i++)
		dst[i] = src[i];
	for (; i < n; i++)
		dst[i] = '\0';
	return dst;
}

char *strchr(const char *s, int c);
char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)(uintptr_t)s;
		if (!*s)
			return NULL;
	}
}

/* ---- formatting: the conversions the library's messages use ---- */

struct out {
	char *buf;
	size_t size, len;
};

static void put(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

/* `s` (n bytes, sign or "0x" prefix first when pfx) padded to width. */
static void put_field(struct out *o, const char *s, size_t n, size_t pfx, int width,
		      bool left, bool zero)
{
	size_t pad = width > 0 && (size_t)width > n ? (size_t)width - n : 0;
	size_t i;

	if (zero && !left) {	/* zeros go between the prefix and the digits */
		for (i = 0; i < pfx; i++)
			put(o, s[i]);
		while (pad--)
			put(o, '0');
		for (; i < n; i++)
			put(o, s[i]);
		return;
	}
	while (!left && pad--)
		put(o, ' ');
	for (i = 0; i < n; i++)
		put(o, s[i]);
	while (left && pad--)
		put(o, ' ');
}

/* %g: `prec` significant digits, trailing zeros dropped. Enough for the
 * library's messages; not correctly rounded in the last digit. */
static size_t fmt_g(char *t, double v, int prec)
{
	char dig[18];
	size_t n = 0;
	int e = 0, i, last;
	uint64_t m, lim = 1;

	if (v != v) {
		t[0] = 'n', t[1] = 'a', t[2] = 'n';
		return 3;
	}
	if (v < 0 || (v == 0 && 1 / v < 0)) {
		t[n++] = '-';
		v = -v;
	}
	if (v > 1.7976931348623157e308) {
		t[n++] = 'i', t[n++] = 'n', t[n++] = 'f';
		return n;
	}
	if (v == 0) {
		t[n++] = '0';
		return n;
	}
	prec = prec <= 0 ? 1 : prec > 17 ? 17 : prec;
	while (v >= 10) {
		v /= 10;
		e++;
	}
	while (v < 1) {
		v *= 10;
		e--;
	}
	for (i = 1; i < prec; i++)
		lim *= 10;
	m = (uint64_t)(v * (double)lim + 0.5);
	if (m >= lim * 10) {
		m /= 10;
		e++;
	}
	for (i = prec - 1; i >= 0; i--, m /= 10)
		dig[i] = (char)('0' + m % 10);
	for (last = prec - 1; last > 0 && dig[last] == '0'; last--)
		;
	if (e < -4 || e >= prec) {		/* d.ddde+XX */
		t[n++] = dig[0];
		if (last > 0)
			t[n++] = '.';
		for (i = 1; i <= last; i++)
			t[n++] = dig[i];
		t[n++] = 'e';
		t[n++] = e < 0 ? '-' : '+';
		e = e < 0 ? -e : e;
		if (e >= 100)
			t[n++] = (char)('0' + e / 100);
		t[n++] = (char)('0' + e / 10 % 10);
		t[n++] = (char)('0' + e % 10);
	} else if (e >= 0) {			/* ddd.ddd */
		for (i = 0; i <= e; i++)
			t[n++] = dig[i];
		if (last > e)
			t[n++] = '.';
		for (; i <= last; i++)
			t[n++] = dig[i];
	} else {				/* 0.000ddd */
		t[n++] = '0';
		t[n++] = '.';
		for (i = -1; i > e; i--)
			t[n++] = '0';
		for (i = 0; i <= last; i++)
			t[n++] = dig[i];
	}
	return n;
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = { buf, size, 0 };

	for (; *fmt; fmt++) {
		char t[40];
		const char *s;
		size_t n = 0, pfx = 0;
		bool left = false, zero = false, neg = false;
		int width = 0, prec = -1, lng = 0;
		unsigned long long u;
		unsigned int base = 10;

		if (*fmt != '%') {
			put(&o, *fmt);
			continue;
		}
		for (;; fmt++) {
			if (fmt[1] == '-')
				left = true;
			else if (fmt[1] == '0')
				zero = true;
			else if (fmt[1] != ' ' && fmt[1] != '+' && fmt[1] != '#')
				break;
		}
		fmt++;
		if (*fmt == '*') {
			width = va_arg(ap, int);
			fmt++;
		}
		for (; *fmt >= '0' && *fmt <= '9'; fmt++)
			width = width * 10 + (*fmt - '0');
		if (*fmt == '.') {
			prec = 0;
			if (*++fmt == '*') {
				prec = va_arg(ap, int);
				fmt++;
			}
			for (; *fmt >= '0' && *fmt <= '9'; fmt++)
				prec = prec * 10 + (*fmt - '0');
		}
		/* 0: int, 1: long (also size_t, intmax_t, ptrdiff_t), 2: long long */
		for (; *fmt == 'l' || *fmt == 'z' || *fmt == 'j' || *fmt == 't' || *fmt == 'h';
		     fmt++)
			lng += *fmt != 'h';
		switch (*fmt) {
		case 'd':
		case 'i': {
			long long v = lng >= 2 ? va_arg(ap, long long) :
				      lng ? va_arg(ap, long) : va_arg(ap, int);

			neg = v < 0;
			u = neg ? 0ull - (unsigned long long)v : (unsigned long long)v;
			goto number;
		}
		case 'x':
		case 'X':
		case 'p':
			base = 16;
			/* fall through */
		case 'u':
			u = *fmt == 'p' ? (uintptr_t)va_arg(ap, void *) :
			    lng >= 2 ? va_arg(ap, unsigned long long) :
			    lng ? va_arg(ap, unsigned long) : va_arg(ap, unsigned int);
number: {
			char d[24];
			size_t nd = 0;
			const char *digits = *fmt == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";

			do {
				d[nd++] = digits[u % base];
				u /= base;
			} while (u);
			if (neg)
				t[pfx++] = '-';
			if (*fmt == 'p') {
				t[pfx++] = '0';
				t[pfx++] = 'x';
			}
			n = pfx;
			for (; prec > 0 && (size_t)prec > nd; prec--)
				t[n++] = '0';
			while (nd)
				t[n++] = d[--nd];
			put_field(&o, t, n, pfx, width, left, zero && prec < 0);
			break;
		}
		case 'c':
			t[0] = (char)va_arg(ap, int);
			put_field(&o, t, 1, 0, width, left, false);
			break;
		case 's':
			s = va_arg(ap, const char *);
			if (!s)
				s = "(null)";
			while ((prec < 0 || n < (size_t)prec) && s[n])
				n++;
			put_field(&o, s, n, 0, width, left, false);
			break;
		case 'g':
		case 'G':
			n = fmt_g(t, va_arg(ap, double), prec < 0 ? 6 : prec);
			put_field(&o, t, n, t[0] == '-', width, left, zero);
			break;
		case '%':
			put(&o, '%');
			break;
		default:	/* not used by the library: shown as written */
			put(&o, '%');
			if (!*fmt)
				fmt--;
			else
				put(&o, *fmt);
			break;
		}
	}
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return (int)o.len;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

/* ---- float: requantisation and the CPU ops (Sigmoid, Tanh, Softmax) ---- */

union f32_bits {
	float f;
	uint32_t u;
};

#define F32_EXP_SHIFT	23
#define F32_EXP_MASK	0xffu
#define F32_EXP_BIAS	126	/* frexp's: the mantissa is in [0.5, 1) */

float frexpf(float x, int *e);
float frexpf(float x, int *e)
{
	union f32_bits b = { .f = x };
	int ex = (int)(b.u >> F32_EXP_SHIFT & F32_EXP_MASK);

	*e = 0;
	if (ex == F32_EXP_MASK || x == 0)	/* inf, nan, zero */
		return x;
	if (ex == 0) {				/* subnormal: normalise first */
		x = frexpf(x * 0x1p25f, e);
		*e -= 25;
		return x;
	}
	*e = ex - F32_EXP_BIAS;
	b.u = (b.u & ~(F32_EXP_MASK << F32_EXP_SHIFT)) | (uint32_t)F32_EXP_BIAS << F32_EXP_SHIFT;
	return b.f;
}

/* Round to an integer in the current rounding mode (nearest-even). */
long lrintf(float x);
long lrintf(float x)
{
	float r;

	__asm__("frintx %s0, %s1" : "=w"(r) : "w"(x));
	return (long)r;
}

/* 2^k for k in [-1022, 1023]. */
static double pow2(int k)
{
	union {
		double d;
		uint64_t u;
	} b = { .u = (uint64_t)(k + 1023) << 52 };

	return b.d;
}

/* e^x in double, far more precise than the float functions need:
 * x = k ln2 + r, |r| <= ln2/2, and e^r by its Taylor series. */
static double exp_d(double x)
{
	static const double ln2_hi = 6.93147180369123816490e-01;	/* ln2 = hi + lo */
	static const double ln2_lo = 1.90821492927058770002e-10;
	static const double inv_ln2 = 1.44269504088896338700e+00;
	const int terms = 12;
	double r, p = 1;
	int k, i;

	if (x != x)
		return x;
	if (x > 710)
		return pow2(1023) * 2;		/* inf */
	if (x < -746)
		return 0;
	k = (int)(x * inv_ln2 + (x < 0 ? -0.5 : 0.5));
	r = x - k * ln2_hi - k * ln2_lo;
	for (i = terms; i >= 1; i--)
		p = 1 + p * r / i;
	return p * pow2(k / 2) * pow2(k - k / 2);
}

float expf(float x);
float expf(float x)
{
	return (float)exp_d(x);
}

/* Below 2^-12, x is tanh x to within float's half ulp. */
#define TANH_LINEAR	2.44140625e-4f

float tanhf(float x);
float tanhf(float x)
{
	double e;

	if (x != x || (x < TANH_LINEAR && x > -TANH_LINEAR))	/* tanh x = x (1 - x^2/3) */
		return x;
	if (x > 10 || x < -10)			/* 1 - tanh < 2^-28 */
		return x > 0 ? 1.0f : -1.0f;
	e = exp_d(2.0 * x);
	return (float)((e - 1) / (e + 1));
}

/* ln y for y > 0 in double: y = m 2^k with m in [sqrt(1/2), sqrt(2)), and
 * ln m = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172, by its series. */
static double log_d(double y)
{
	static const double ln2 = 6.93147180559945309417e-01;
	const int terms = 20;
	double m = y, s, s2, sum = 0;
	int k = 0;

	while (m >= 1.4142135623730951) {
		m /= 2;
		k++;
	}
	while (m < 0.7071067811865476) {
		m *= 2;
		k--;
	}
	s = (m - 1) / (m + 1);
	s2 = s * s;
	for (int i = terms; i >= 0; i--)
		sum = 1.0 / (2 * i + 1) + s2 * sum;
	return 2 * s * sum + k * ln2;
}

/* ln(1 + x): 1 + x is exact in double for any float x. */
float log1pf(float x);
float log1pf(float x)
{
	double y = 1.0 + (double)x;

	if (x != x || y < 0)
		return (x - x) / (x - x);	/* NaN */
	if (y == 0)
		return -1.0f / 0.0f;		/* -inf */
	if (x > 3.4e38f)
		return x;			/* inf */
	return (float)log_d(y);
}

/* Past this, erfc x < 2^-149: float's zero. */
#define ERFC_ZERO	10.1
/* Below it the series of erf, above it the continued fraction. */
#define ERFC_SPLIT	2.0

/* erfc x in double for x >= 0: 1 − erf x by erf's Taylor series
 * (2/√π) Σ (−1)^n x^(2n+1) / (n! (2n+1)) below ERFC_SPLIT; above, the
 * continued fraction erfc x = e^(−x²)/√π · 1/(x + (1/2)/(x + 1/(x +
 * (3/2)/(x + …)))), evaluated from its tail. */
static double erfc_pos(double x)
{
	static const double two_over_sqrt_pi = 1.12837916709551257390;
	static const double inv_sqrt_pi = 0.56418958354775628695;
	const int terms = 60;

	if (x < ERFC_SPLIT) {
		double term = x, sum = x;

		for (int n = 1; n < terms; n++) {
			term *= -x * x / n;
			sum += term / (2 * n + 1);
		}
		return 1 - two_over_sqrt_pi * sum;
	}
	if (x > ERFC_ZERO)
		return 0;
	{
		double f = x;

		for (int n = terms; n >= 1; n--)
			f = x + (n / 2.0) / f;
		return exp_d(-x * x) * inv_sqrt_pi / f;
	}
}

float erfcf(float x);
float erfcf(float x)
{
	if (x != x)
		return x;
	return (float)(x < 0 ? 2 - erfc_pos(-(double)x) : erfc_pos(x));
}
