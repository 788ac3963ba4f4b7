// libseat: seat and device access through seatd, logind or an embedded seatd.
#include <libseat.h>
