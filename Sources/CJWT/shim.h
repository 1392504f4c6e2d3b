#ifndef FIELDPASS_CJWT_SHIM_H
#define FIELDPASS_CJWT_SHIM_H
#include <jwt.h>
#endif
