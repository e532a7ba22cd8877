// wgmma.mma_async m64nNk16 with fp16 inputs from shared memory, for N = CL2_BN (16..256 in steps
// of 16), accumulating in fp32 (N/2 registers per thread) or fp16 (N/4 registers, two halves
// each). Inline asm needs every accumulator register spelled out, so the operand lists are built
// from 4-register pieces; the space file defines CL2_WG_REGS (registers per thread) and the
// operand numbers of the descriptors and the scale predicate (CL2_WG_OP_A, _B, _SCALE).
#define CL2_STR_(x) #x
#define CL2_STR(x) CL2_STR_(x)
#define CL2_CAT_(a, b) a##b
#define CL2_CAT(a, b) CL2_CAT_(a, b)

// "%i, %i+1, %i+2, %i+3" and the matching operands.
#define CL2_P4(a, b, c, d) "%" #a ", %" #b ", %" #c ", %" #d
#define CL2_F4(i) "+f"(acc[i]), "+f"(acc[i + 1]), "+f"(acc[i + 2]), "+f"(acc[i + 3])
#define CL2_U4(i) "+r"(acc[i]), "+r"(acc[i + 1]), "+r"(acc[i + 2]), "+r"(acc[i + 3])

#define CL2_PLIST4 CL2_P4(0, 1, 2, 3)
#define CL2_FLIST4 CL2_F4(0)
#define CL2_ULIST4 CL2_U4(0)
#define CL2_PLIST8 CL2_PLIST4 ", " CL2_P4(4, 5, 6, 7)
#define CL2_FLIST8 CL2_FLIST4, CL2_F4(4)
#define CL2_ULIST8 CL2_ULIST4, CL2_U4(4)
#define CL2_PLIST12 CL2_PLIST8 ", " CL2_P4(8, 9, 10, 11)
#define CL2_FLIST12 CL2_FLIST8, CL2_F4(8)
#define CL2_ULIST12 CL2_ULIST8, CL2_U4(8)
#define CL2_PLIST16 CL2_PLIST12 ", " CL2_P4(12, 13, 14, 15)
#define CL2_FLIST16 CL2_FLIST12, CL2_F4(12)
#define CL2_ULIST16 CL2_ULIST12, CL2_U4(12)
#define CL2_PLIST20 CL2_PLIST16 ", " CL2_P4(16, 17, 18, 19)
#define CL2_FLIST20 CL2_FLIST16, CL2_F4(16)
#define CL2_ULIST20 CL2_ULIST16, CL2_U4(16)
#define CL2_PLIST24 CL2_PLIST20 ", " CL2_P4(20, 21, 22, 23)
#define CL2_FLIST24 CL2_FLIST20, CL2_F4(20)
#define CL2_ULIST24 CL2_ULIST20, CL2_U4(20)
#define CL2_PLIST28 CL2_PLIST24 ", " CL2_P4(24, 25, 26, 27)
#define CL2_FLIST28 CL2_FLIST24, CL2_F4(24)
#define CL2_ULIST28 CL2_ULIST24, CL2_U4(24)
#define CL2_PLIST32 CL2_PLIST28 ", " CL2_P4(28, 29, 30, 31)
#define CL2_FLIST32 CL2_FLIST28, CL2_F4(28)
#define CL2_ULIST32 CL2_ULIST28, CL2_U4(28)
#define CL2_PLIST36 CL2_PLIST32 ", " CL2_P4(32, 33, 34, 35)
#define CL2_FLIST36 CL2_FLIST32, CL2_F4(32)
#define CL2_ULIST36 CL2_ULIST32, CL2_U4(32)
#define CL2_PLIST40 CL2_PLIST36 ", " CL2_P4(36, 37, 38, 39)
#define CL2_FLIST40 CL2_FLIST36, CL2_F4(36)
#define CL2_ULIST40 CL2_ULIST36, CL2_U4(36)
#define CL2_PLIST44 CL2_PLIST40 ", " CL2_P4(40, 41, 42, 43)
#define CL2_FLIST44 CL2_FLIST40, CL2_F4(40)
#define CL2_ULIST44 CL2_ULIST40, CL2_U4(40)
#define CL2_PLIST48 CL2_PLIST44 ", " CL2_P4(44, 45, 46, 47)
#define CL2_FLIST48 CL2_FLIST44, CL2_F4(44)
#define CL2_ULIST48 CL2_ULIST44, CL2_U4(44)
#define CL2_PLIST52 CL2_PLIST48 ", " CL2_P4(48, 49, 50, 51)
#define CL2_FLIST52 CL2_FLIST48, CL2_F4(48)
#define CL2_ULIST52 CL2_ULIST48, CL2_U4(48)
#define CL2_PLIST56 CL2_PLIST52 ", " CL2_P4(52, 53, 54, 55)
#define CL2_FLIST56 CL2_FLIST52, CL2_F4(52)
#define CL2_ULIST56 CL2_ULIST52, CL2_U4(52)
#define CL2_PLIST60 CL2_PLIST56 ", " CL2_P4(56, 57, 58, 59)
#define CL2_FLIST60 CL2_FLIST56, CL2_F4(56)
#define CL2_ULIST60 CL2_ULIST56, CL2_U4(56)
#define CL2_PLIST64 CL2_PLIST60 ", " CL2_P4(60, 61, 62, 63)
#define CL2_FLIST64 CL2_FLIST60, CL2_F4(60)
#define CL2_ULIST64 CL2_ULIST60, CL2_U4(60)
#define CL2_PLIST68 CL2_PLIST64 ", " CL2_P4(64, 65, 66, 67)
#define CL2_FLIST68 CL2_FLIST64, CL2_F4(64)
#define CL2_ULIST68 CL2_ULIST64, CL2_U4(64)
#define CL2_PLIST72 CL2_PLIST68 ", " CL2_P4(68, 69, 70, 71)
#define CL2_FLIST72 CL2_FLIST68, CL2_F4(68)
#define CL2_ULIST72 CL2_ULIST68, CL2_U4(68)
#define CL2_PLIST76 CL2_PLIST72 ", " CL2_P4(72, 73, 74, 75)
#define CL2_FLIST76 CL2_FLIST72, CL2_F4(72)
#define CL2_ULIST76 CL2_ULIST72, CL2_U4(72)
#define CL2_PLIST80 CL2_PLIST76 ", " CL2_P4(76, 77, 78, 79)
#define CL2_FLIST80 CL2_FLIST76, CL2_F4(76)
#define CL2_ULIST80 CL2_ULIST76, CL2_U4(76)
#define CL2_PLIST84 CL2_PLIST80 ", " CL2_P4(80, 81, 82, 83)
#define CL2_FLIST84 CL2_FLIST80, CL2_F4(80)
#define CL2_ULIST84 CL2_ULIST80, CL2_U4(80)
#define CL2_PLIST88 CL2_PLIST84 ", " CL2_P4(84, 85, 86, 87)
#define CL2_FLIST88 CL2_FLIST84, CL2_F4(84)
#define CL2_ULIST88 CL2_ULIST84, CL2_U4(84)
#define CL2_PLIST92 CL2_PLIST88 ", " CL2_P4(88, 89, 90, 91)
#define CL2_FLIST92 CL2_FLIST88, CL2_F4(88)
#define CL2_ULIST92 CL2_ULIST88, CL2_U4(88)
#define CL2_PLIST96 CL2_PLIST92 ", " CL2_P4(92, 93, 94, 95)
#define CL2_FLIST96 CL2_FLIST92, CL2_F4(92)
#define CL2_ULIST96 CL2_ULIST92, CL2_U4(92)
#define CL2_PLIST100 CL2_PLIST96 ", " CL2_P4(96, 97, 98, 99)
#define CL2_FLIST100 CL2_FLIST96, CL2_F4(96)
#define CL2_ULIST100 CL2_ULIST96, CL2_U4(96)
#define CL2_PLIST104 CL2_PLIST100 ", " CL2_P4(100, 101, 102, 103)
#define CL2_FLIST104 CL2_FLIST100, CL2_F4(100)
#define CL2_ULIST104 CL2_ULIST100, CL2_U4(100)
#define CL2_PLIST108 CL2_PLIST104 ", " CL2_P4(104, 105, 106, 107)
#define CL2_FLIST108 CL2_FLIST104, CL2_F4(104)
#define CL2_ULIST108 CL2_ULIST104, CL2_U4(104)
#define CL2_PLIST112 CL2_PLIST108 ", " CL2_P4(108, 109, 110, 111)
#define CL2_FLIST112 CL2_FLIST108, CL2_F4(108)
#define CL2_ULIST112 CL2_ULIST108, CL2_U4(108)
#define CL2_PLIST116 CL2_PLIST112 ", " CL2_P4(112, 113, 114, 115)
#define CL2_FLIST116 CL2_FLIST112, CL2_F4(112)
#define CL2_ULIST116 CL2_ULIST112, CL2_U4(112)
#define CL2_PLIST120 CL2_PLIST116 ", " CL2_P4(116, 117, 118, 119)
#define CL2_FLIST120 CL2_FLIST116, CL2_F4(116)
#define CL2_ULIST120 CL2_ULIST116, CL2_U4(116)
#define CL2_PLIST124 CL2_PLIST120 ", " CL2_P4(120, 121, 122, 123)
#define CL2_FLIST124 CL2_FLIST120, CL2_F4(120)
#define CL2_ULIST124 CL2_ULIST120, CL2_U4(120)
#define CL2_PLIST128 CL2_PLIST124 ", " CL2_P4(124, 125, 126, 127)
#define CL2_FLIST128 CL2_FLIST124, CL2_F4(124)
#define CL2_ULIST128 CL2_ULIST124, CL2_U4(124)

#define CL2_WG_PLIST CL2_CAT(CL2_PLIST, CL2_WG_REGS)
#define CL2_WG_FLIST CL2_CAT(CL2_FLIST, CL2_WG_REGS)
#define CL2_WG_ULIST CL2_CAT(CL2_ULIST, CL2_WG_REGS)

// acc += A (64 x 16, K-major at desc_a) * B (16 x CL2_BN at desc_b; N-major when trans_b).
template <int trans_b>
__device__ __forceinline__ void cl2_wgmma(float (&acc)[CL2_WG_REGS], unsigned long long desc_a,
                                          unsigned long long desc_b) {
  asm volatile(
      "{\n .reg .pred accumulate;\n setp.ne.b32 accumulate, %" CL2_STR(CL2_WG_OP_SCALE) ", 0;\n"
      " wgmma.mma_async.sync.aligned.m64n" CL2_STR(CL2_BN) "k16.f32.f16.f16 {" CL2_WG_PLIST "}, %"
      CL2_STR(CL2_WG_OP_A) ", %" CL2_STR(CL2_WG_OP_B) ", accumulate, 1, 1, 0, %" CL2_STR(CL2_WG_OP_TRANS) ";\n}\n"
      : CL2_WG_FLIST
      : "l"(desc_a), "l"(desc_b), "r"(1), "n"(trans_b));
}

__device__ __forceinline__ void cl2_wgmma_fence_operands(float (&acc)[CL2_WG_REGS]) {
#pragma unroll
  for (int i = 0; i < CL2_WG_REGS; ++i) asm volatile("" : "+f"(acc[i])::"memory");
}

template <int trans_b>
__device__ __forceinline__ void cl2_wgmma(unsigned (&acc)[CL2_WG_REGS], unsigned long long desc_a,
                                          unsigned long long desc_b) {
  asm volatile(
      "{\n .reg .pred accumulate;\n setp.ne.b32 accumulate, %" CL2_STR(CL2_WG_OP_SCALE) ", 0;\n"
      " wgmma.mma_async.sync.aligned.m64n" CL2_STR(CL2_BN) "k16.f16.f16.f16 {" CL2_WG_PLIST "}, %"
      CL2_STR(CL2_WG_OP_A) ", %" CL2_STR(CL2_WG_OP_B) ", accumulate, 1, 1, 0, %" CL2_STR(CL2_WG_OP_TRANS) ";\n}\n"
      : CL2_WG_ULIST
      : "l"(desc_a), "l"(desc_b), "r"(1), "n"(trans_b));
}

__device__ __forceinline__ void cl2_wgmma_fence_operands(unsigned (&acc)[CL2_WG_REGS]) {
#pragma unroll
  for (int i = 0; i < CL2_WG_REGS; ++i) asm volatile("" : "+r"(acc[i])::"memory");
}
