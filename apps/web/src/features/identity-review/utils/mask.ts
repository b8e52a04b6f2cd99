// the masking helpers moved to lib: the authenticate screen masks the same way
export { maskCreditCode, maskIdNumber, maskMiddle } from '@/lib/format/mask';
