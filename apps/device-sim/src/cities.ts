/**
 * Cities where the simulated devices stand (centre, and a weight by business size). Every centre lies inside
 * its province on the shipped map, and devices drift at most about a kilometre from it.
 */
export interface City {
  name: string;
  /** The name in Chinese, for device names in the demo. */
  zh: string;
  lat: number;
  lng: number;
  weight: number;
}

export const CITIES: readonly City[] = [
  { name: 'Beijing', zh: '北京', lat: 39.9042, lng: 116.4074, weight: 10 },
  { name: 'Shanghai', zh: '上海', lat: 31.2304, lng: 121.4737, weight: 10 },
  { name: 'Guangzhou', zh: '广州', lat: 23.1291, lng: 113.2644, weight: 8 },
  { name: 'Shenzhen', zh: '深圳', lat: 22.5431, lng: 114.0579, weight: 8 },
  { name: 'Chengdu', zh: '成都', lat: 30.5728, lng: 104.0668, weight: 6 },
  { name: 'Hangzhou', zh: '杭州', lat: 30.2741, lng: 120.1551, weight: 6 },
  { name: 'Wuhan', zh: '武汉', lat: 30.5928, lng: 114.3055, weight: 5 },
  { name: "Xi'an", zh: '西安', lat: 34.3416, lng: 108.9398, weight: 4 },
  { name: 'Nanjing', zh: '南京', lat: 32.0603, lng: 118.7969, weight: 5 },
  { name: 'Chongqing', zh: '重庆', lat: 29.563, lng: 106.5516, weight: 5 },
  { name: 'Tianjin', zh: '天津', lat: 39.3434, lng: 117.3616, weight: 4 },
  { name: 'Suzhou', zh: '苏州', lat: 31.2989, lng: 120.5853, weight: 4 },
  { name: 'Changsha', zh: '长沙', lat: 28.2282, lng: 112.9388, weight: 3 },
  { name: 'Zhengzhou', zh: '郑州', lat: 34.7466, lng: 113.6253, weight: 3 },
  { name: 'Shenyang', zh: '沈阳', lat: 41.8057, lng: 123.4315, weight: 3 },
  { name: 'Qingdao', zh: '青岛', lat: 36.1, lng: 120.4, weight: 3 },
  { name: 'Jinan', zh: '济南', lat: 36.6512, lng: 117.1201, weight: 2 },
  { name: 'Harbin', zh: '哈尔滨', lat: 45.8038, lng: 126.535, weight: 2 },
  { name: 'Changchun', zh: '长春', lat: 43.8171, lng: 125.3235, weight: 2 },
  { name: 'Xiamen', zh: '厦门', lat: 24.5, lng: 118.1, weight: 2 },
  { name: 'Fuzhou', zh: '福州', lat: 26.0745, lng: 119.2965, weight: 2 },
  { name: 'Kunming', zh: '昆明', lat: 25.0389, lng: 102.7183, weight: 2 },
  { name: 'Nanning', zh: '南宁', lat: 22.817, lng: 108.3665, weight: 2 },
  { name: 'Hefei', zh: '合肥', lat: 31.8206, lng: 117.2272, weight: 2 },
  { name: 'Nanchang', zh: '南昌', lat: 28.682, lng: 115.8579, weight: 2 },
  { name: 'Shijiazhuang', zh: '石家庄', lat: 38.0428, lng: 114.5149, weight: 2 },
  { name: 'Taiyuan', zh: '太原', lat: 37.8706, lng: 112.5489, weight: 1 },
  { name: 'Guiyang', zh: '贵阳', lat: 26.647, lng: 106.6302, weight: 1 },
  { name: 'Lanzhou', zh: '兰州', lat: 36.0611, lng: 103.8343, weight: 1 },
  { name: 'Urumqi', zh: '乌鲁木齐', lat: 43.8256, lng: 87.6168, weight: 1 },
  { name: 'Hohhot', zh: '呼和浩特', lat: 40.8424, lng: 111.749, weight: 1 },
  { name: 'Yinchuan', zh: '银川', lat: 38.4872, lng: 106.2309, weight: 1 },
  { name: 'Xining', zh: '西宁', lat: 36.6171, lng: 101.7782, weight: 1 },
  { name: 'Lhasa', zh: '拉萨', lat: 29.65, lng: 91.1, weight: 1 },
  { name: 'Haikou', zh: '海口', lat: 20.044, lng: 110.1999, weight: 1 },
];
