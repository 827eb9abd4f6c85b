// Short kernel names for the lanes and the waits table, on real names from the recorded fixtures
// (test/fixtures/torch/programs, test/fixtures/torch/rocm).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shortKernelName } from '../../core/trace/kernel-names';

test('cuBLAS names keep their words, data types and layout', () => {
  assert.equal(
    shortKernelName(
      'sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize256x128x8_stage3_warpsize4x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas',
    ),
    'xmma_gemm f32 nn',
  );
  assert.equal(
    shortKernelName(
      'sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas',
    ),
    'xmma_gemm f32 tn',
  );
  assert.equal(
    shortKernelName(
      'void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nt_align1>(cutlass_80_simt_sgemm_256x128_8x4_nt_align1::Params)',
    ),
    'Kernel2<cutlass_simt_sgemm nt>',
  );
});

test('templated ATen names keep the operation among their template arguments', () => {
  assert.equal(
    shortKernelName(
      'void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)',
    ),
    'vectorized_elementwise_kernel<add>',
  );
  assert.equal(
    shortKernelName(
      'void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctorOnSelf_add<float>, std::array<char*, 2ul> >(int, at::native::CUDAFunctorOnSelf_add<float>, std::array<char*, 2ul>)',
    ),
    'vectorized_elementwise_kernel<add>',
  );
  // The capture's names have no return type or parameters already; ROCm's carry " [clone .kd]".
  assert.equal(
    shortKernelName(
      'at::native::vectorized_elementwise_kernel<2, at::native::FillFunctor<long>, std::array<char*, 1ul> >',
    ),
    'vectorized_elementwise_kernel<Fill>',
  );
  assert.equal(
    shortKernelName(
      'void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>) [clone .kd]',
    ),
    'vectorized_elementwise_kernel<add>',
  );
  assert.equal(
    shortKernelName(
      'void (anonymous namespace)::softmax_warp_forward<float, float, float, 4, true, false>(float*, float const*, int, int, int, bool const*, int, bool)',
    ),
    'softmax_warp_forward<…>',
  );
});

test('short names stay as they are', () => {
  assert.equal(shortKernelName('spin_kernel'), 'spin_kernel');
  assert.equal(shortKernelName('produce<1>'), 'produce<1>');
});
