#ifndef FIELDPASS_CQRENCODE_SHIM_H
#define FIELDPASS_CQRENCODE_SHIM_H
#include <qrencode.h>
#endif
