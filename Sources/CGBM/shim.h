// Mesa's generic buffer management: buffer objects on a DRM device that its planes scan out and
// a GPU renders into.
#include <gbm.h>
