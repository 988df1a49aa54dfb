#ifndef PARLEY_CV4L2_SHIM_H
#define PARLEY_CV4L2_SHIM_H
/* V4L2 (Linux only): the kernel UAPI header's structs, and its ioctl request numbers, which are
   function-like _IOR/_IOWR macros Swift cannot import, as constants. Elsewhere this module is
   empty, so VideoCore still builds on macOS. See Documentation/userspace-api/media/v4l/. */
#if defined(__linux__)
#include <errno.h>
#include <sys/ioctl.h>
#include <linux/videodev2.h>

static const unsigned long PARLEY_VIDIOC_QUERYCAP = VIDIOC_QUERYCAP;
static const unsigned long PARLEY_VIDIOC_ENUM_FMT = VIDIOC_ENUM_FMT;
static const unsigned long PARLEY_VIDIOC_ENUM_FRAMESIZES = VIDIOC_ENUM_FRAMESIZES;
static const unsigned long PARLEY_VIDIOC_G_FMT = VIDIOC_G_FMT;
static const unsigned long PARLEY_VIDIOC_S_FMT = VIDIOC_S_FMT;
static const unsigned long PARLEY_VIDIOC_S_PARM = VIDIOC_S_PARM;
static const unsigned long PARLEY_VIDIOC_REQBUFS = VIDIOC_REQBUFS;
static const unsigned long PARLEY_VIDIOC_QUERYBUF = VIDIOC_QUERYBUF;
static const unsigned long PARLEY_VIDIOC_QBUF = VIDIOC_QBUF;
static const unsigned long PARLEY_VIDIOC_DQBUF = VIDIOC_DQBUF;
static const unsigned long PARLEY_VIDIOC_STREAMON = VIDIOC_STREAMON;
static const unsigned long PARLEY_VIDIOC_STREAMOFF = VIDIOC_STREAMOFF;

/* Pixel formats Parley converts (v4l2_fourcc is a function-like macro too). */
static const unsigned int PARLEY_V4L2_PIX_FMT_YUYV = V4L2_PIX_FMT_YUYV;
static const unsigned int PARLEY_V4L2_PIX_FMT_NV12 = V4L2_PIX_FMT_NV12;
static const unsigned int PARLEY_V4L2_PIX_FMT_YUV420 = V4L2_PIX_FMT_YUV420;
static const unsigned int PARLEY_V4L2_PIX_FMT_YVU420 = V4L2_PIX_FMT_YVU420;

/* ioctl is variadic; this typed call retries when a signal interrupts it (the kernel's capture
   example, Documentation/userspace-api/media/v4l/capture.c.rst, xioctl). */
static inline int parley_v4l2_ioctl(int fd, unsigned long request, void *argument) {
    int result;
    do { result = ioctl(fd, request, argument); } while (result == -1 && errno == EINTR);
    return result;
}
#endif
#endif
