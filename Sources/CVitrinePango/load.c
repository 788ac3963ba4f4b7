#include "vitrine-pango.h"

#include <dlfcn.h>
#include <stdio.h>

int vitrine_pango_load(
    const char *_Nonnull library, struct vitrine_pango_functions *_Nonnull functions, char *_Nonnull error,
    size_t error_size) {
    // Local: the symbols are reached through this handle only, and nothing else in the process
    // resolves against them. An already loaded library (a build that links Pango) is reused.
    void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        snprintf(error, error_size, "%s", dlerror());
        return -1;
    }
    void *symbol;
    // dlsym searches the library and the libraries it needs (g_object_unref is gobject's).
#define VITRINE_PANGO_LOAD(name) \
    symbol = dlsym(handle, #name); \
    if (symbol == NULL) { \
        snprintf(error, error_size, "%s has no %s", library, #name); \
        dlclose(handle); \
        return -1; \
    } \
    functions->name = (__typeof__(functions->name))symbol;
    VITRINE_PANGO_FUNCTIONS(VITRINE_PANGO_LOAD)
#undef VITRINE_PANGO_LOAD
    return 0;
}
