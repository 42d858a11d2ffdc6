/* SPDX-License-Identifier: MIT */
/* The second kernel's own services, shared by its files. */
#ifndef SECOND_KERNEL_H
#define SECOND_KERNEL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

struct npu_dev;
struct dma_pool;

/* Linker-script symbols (kernel.ld). */
extern char __heap_start[], __heap_end[], __dma_start[], __dma_end[];

/* PL011 console (kernel.c). */
void console_write(const char *s, size_t n);
void kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void kvprintf(const char *fmt, va_list ap);

/* Ends the QEMU run with `status` (start.S, semihosting). */
void semihost_exit(int status) __attribute__((noreturn));

/* The libc subset docs/PORTING.md lists, as this kernel provides it
 * (libc.c); declared here because the kernel includes no libc header. */
void *malloc(size_t size);
void *calloc(size_t n, size_t size);
void free(void *p);
void *memcpy(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);

/* The applications (app.c): the image's matmul demo and its default model,
 * on a powered NPU. 0 when every result is as expected. */
int app_matmul(struct npu_dev *npu, struct dma_pool *pool);
int app_model(struct npu_dev *npu, struct dma_pool *pool);

#endif /* SECOND_KERNEL_H */
