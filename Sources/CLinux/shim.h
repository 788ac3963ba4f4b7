// Linux interfaces that Swift's Glibc module does not export.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <sys/mman.h>
#include <sys/vfs.h>
#include <sys/timerfd.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <sys/pidfd.h>
#include <fcntl.h>
#include <sys/eventfd.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <linux/dma-buf.h>
#include <malloc.h>

/// Brackets CPU writes into a mapping of a dma-buf (DMA_BUF_IOCTL_SYNC, whose request number is a
/// macro Swift cannot import): 0, or -1 with errno (ENOTTY for memory that is no dma-buf).
static inline int vitrine_dma_buf_begin_write(int fd) {
    struct dma_buf_sync sync = { .flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE };
    return ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync);
}

static inline int vitrine_dma_buf_end_write(int fd) {
    struct dma_buf_sync sync = { .flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE };
    return ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync);
}
