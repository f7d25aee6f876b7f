#pragma once
#include <pulse/pulseaudio.h>
