void f(void) {
  // café
}
