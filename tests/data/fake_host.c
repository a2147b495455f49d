/* A stand-in for a user's host program (testing-platform mode, no GPU): it "launches" a kernel
   whose cost depends on the variant's block size, passed as -DBLOCK=..., and fails like a launch
   with too many resources for BLOCK == 64. autogpu-tune inserts the timing code at the marker. */
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

static void fake_launch(int block) {
  if (block == 64) {
    fprintf(stderr, "too many resources requested for launch\n");
    exit(1);
  }
  long work = block == 128 ? 200000L : 2000000L;
  for (long i = 0; i < work; i++)
    sink += i * 0.5;
}

int main(void) {
  // autogpu: time repeat=3
  fake_launch(
      BLOCK);
  return 0;
}
