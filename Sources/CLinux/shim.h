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
