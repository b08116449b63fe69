// A backslash line continuation inside the parameter list (the preprocessor joins the lines).
extern "C" void solve(const float* A, \
                      float* B, int N) { (void)A; (void)B; (void)N; }
